/* vigil's entry point: subcommands, then the daemon. */
#include <stdio.h>
#include <string.h>

#include "core/options.h"
#include "core/vigil.h"

int main(int argc, char **argv)
{
        struct vigil_options opt;
        options_defaults(&opt);
        int r = options_parse(&opt, argc, argv);
        if (r < 0)
                return 2;
        if (r > 0)
                return 0;
        options_resolve(&opt);
        return vigil_daemon_run(&opt);
}

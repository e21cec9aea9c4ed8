#!/bin/sh
# The packaged systemd unit on stdout, made from dist/systemd/vigil.service (the one
# `make install` puts): /usr/bin/vigil, and only --quiet before $VIGIL_OPTS, so the log
# directory and the listen address come from /etc/vigil/vigil.conf, which
# /etc/default/vigil names (the command line wins over the file: a --log-dir here would
# make an edit of vigil.conf do nothing). debian/rules installs it; tests/integration/
# dist.sh checks /etc/default/vigil against it.
set -e
top=$(dirname "$0")/..
sed -e 's#^ExecStart=/usr/local/bin/vigil --quiet --log-dir /var/log/vigil --listen :9101 #ExecStart=/usr/bin/vigil --quiet #' \
	-e 's#Installed by `make install`#Installed by the Debian package#' \
	-e 's#^\# Options go in /etc/default/vigil as .*#\# Options go in /etc/default/vigil (VIGIL_OPTS), which names /etc/vigil/vigil.conf;#' \
	-e 's#^\# or in an INI file: .*#\# the log directory and the listen address are set there. See README.Debian.#' \
	"$top/dist/systemd/vigil.service"

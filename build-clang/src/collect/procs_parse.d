build-clang/src/collect/procs_parse.o: src/collect/procs_parse.c \
  src/collect/procs.h src/core/vigil.h src/core/frame.h \
  src/core/options.h src/util/parse.h

src/collect/procs.h:

src/core/vigil.h:

src/core/frame.h:

src/core/options.h:

src/util/parse.h:

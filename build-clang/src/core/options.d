build-clang/src/core/options.o: src/core/options.c src/core/options.h \
  src/core/frame.h src/util/clock.h src/util/parse.h

src/core/options.h:

src/core/frame.h:

src/util/clock.h:

src/util/parse.h:

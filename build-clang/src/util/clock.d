build-clang/src/util/clock.o: src/util/clock.c src/util/clock.h

src/util/clock.h:

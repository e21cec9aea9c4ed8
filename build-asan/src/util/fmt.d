build-asan/src/util/fmt.o: src/util/fmt.c src/util/fmt.h
src/util/fmt.h:

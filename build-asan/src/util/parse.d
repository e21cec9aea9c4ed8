build-asan/src/util/parse.o: src/util/parse.c src/util/parse.h
src/util/parse.h:

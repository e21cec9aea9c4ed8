build-clang/src/util/pfile.o: src/util/pfile.c src/util/pfile.h

src/util/pfile.h:

build-clang/src/util/strbuf.o: src/util/strbuf.c src/util/strbuf.h

src/util/strbuf.h:

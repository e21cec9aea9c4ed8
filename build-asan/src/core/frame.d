build-asan/src/core/frame.o: src/core/frame.c src/core/frame.h
src/core/frame.h:

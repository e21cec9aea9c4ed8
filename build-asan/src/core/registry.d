build-asan/src/core/registry.o: src/core/registry.c src/core/vigil.h \
 src/core/frame.h src/core/options.h
src/core/vigil.h:
src/core/frame.h:
src/core/options.h:

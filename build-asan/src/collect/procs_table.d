build-asan/src/collect/procs_table.o: src/collect/procs_table.c \
 src/collect/procs_table.h src/collect/procs.h src/core/vigil.h \
 src/core/frame.h src/core/options.h
src/collect/procs_table.h:
src/collect/procs.h:
src/core/vigil.h:
src/core/frame.h:
src/core/options.h:

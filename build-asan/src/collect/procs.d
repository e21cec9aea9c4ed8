build-asan/src/collect/procs.o: src/collect/procs.c src/collect/procs.h \
 src/core/vigil.h src/core/frame.h src/core/options.h \
 src/collect/procs_table.h src/util/clock.h src/util/parse.h \
 src/util/pfile.h
src/collect/procs.h:
src/core/vigil.h:
src/core/frame.h:
src/core/options.h:
src/collect/procs_table.h:
src/util/clock.h:
src/util/parse.h:
src/util/pfile.h:

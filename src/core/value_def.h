/* The slots of a value table's entries (core/host_values.def, watch_values.def,
 * rpi_values.def, fs_values.def, storage_values.def; the GPU's table is data,
 * core/gpu_values.c): each entry is one macro
 * call naming a member and carrying, in optional slots, everything an output needs to
 * know of it (its CSV columns, its /metrics series, its dashboard history). An includer
 * of a table defines the entry macro to pick the slot it wants and hand it to VD_SLOT
 * with a context, and defines the emitters of that slot's forms (VD_HCOL... and
 * VD_WCOL... for the host log's; VD_MET... for /metrics; VD_HIST); an empty slot (NO_COL,
 * NO_MET, NO_HIST) expands to nothing.
 *
 *   VALUE(double, load1, , FK_DOUBLE, HCOL(LOAD1, "load1", PY, 1),
 *         MET("vigil_load1", gauge, "1-minute load average.", 1), NO_HIST)
 *
 * A slot written NAME(args) expands to "VD_NAME, (args)"; VD_SLOT(ctx, slot) calls
 * VD_NAME(ctx, args). ctx is what the emitter needs of the entry, in parentheses:
 * (member, validity member); VD_MEMBER and VD_VALID take it apart. */
#ifndef VIGIL_CORE_VALUE_DEF_H
#define VIGIL_CORE_VALUE_DEF_H

/* The slots. */
#define NO_COL VD_NONE, ()
/* A /metrics series: MET("name", type, "help", scale) starts a family of one series;
 * MET_L("name", type, "help", "key", "val", scale) a family's first labelled series;
 * MET_MORE("key", "val", scale) one more series of the family in the entry above;
 * MET_CODE("name", type, "help") a family sink/metrics.c renders in code from this
 * member, MET_CODE_OF("members", ...) from the members named. */
#define NO_MET           VD_NONE, ()
#define MET(...)         VD_MET, (__VA_ARGS__)
#define MET_L(...)       VD_MET_L, (__VA_ARGS__)
#define MET_MORE(...)    VD_MET_MORE, (__VA_ARGS__)
#define MET_CODE(...)    VD_MET_CODE, (__VA_ARGS__)
#define MET_CODE_OF(...) VD_MET_CODE_OF, (__VA_ARGS__)
/* A column of the host log (core/host_row.h), whose position is HC_ID's in enum
 * host_col; divisor turns the member into the column's unit (a number, MB or MHZ),
 * format is a HF_ of enum host_col_fmt:
 *   HCOL(ID, "name", format, divisor): the member
 *   HCOL_AT(ID, "name", format, divisor, index, count): element index of an array member,
 *                          when index < the member count
 *   HCOL_ELSE(ID, divisor): the member where the column is still empty (a second source
 *                           of a column declared by an area read before this one)
 *   HCOL_FS(ROOT_ID, "root name", LOG_ID, "log name", format, divisor): one column per
 *                          watched file system (FS_ROOT, FS_LOG)
 *   HCOL_SUM(ID, "name", format, n): the sum of member[0..n), empty when one is missing
 *   HCOL_TIME(ID, "name"): the row's time (ns since the epoch), ISO 8601 to the ms
 *   HCOL_CORES(ID, "prefix", "suffix", count): one column per core, prefix N suffix
 *   HCOL_TEXT(ID, "name", buffer): a string, copied into the row's buffer
 *   HCOL_WORD(ID, "name", FLAGS_ID, "flags name", buffer): a validated bit word in hex,
 *                          and its set conditions' names (core/rpi_throttle.h), copied
 *                          into the row's buffer, at FLAGS_ID
 * A watch's columns (core/watch_values.def), rule saying what a watch matching nothing
 * has (ANY: the value as it is; SUM: 0, a sum over no process; RUNNING: empty):
 *   WCOL(WC_ID, "_suffix", format, divisor, rule): each watch without reference columns
 *                          has NAME_suffix at WC_ID of enum watch_col
 *   WREF(ID, "name", format, divisor, "watch", rule): the reference monitor's column of
 *                          the watch so named
 *   WCOL_REF(WC_ID, "_suffix", format, divisor, rule, ID, "name", "watch", ref rule): both */
#define HCOL(...)       VD_HCOL, (__VA_ARGS__)
#define HCOL_AT(...)    VD_HCOL_AT, (__VA_ARGS__)
#define HCOL_ELSE(...)  VD_HCOL_ELSE, (__VA_ARGS__)
#define HCOL_FS(...)    VD_HCOL_FS, (__VA_ARGS__)
#define HCOL_SUM(...)   VD_HCOL_SUM, (__VA_ARGS__)
#define HCOL_TIME(...)  VD_HCOL_TIME, (__VA_ARGS__)
#define HCOL_CORES(...) VD_HCOL_CORES, (__VA_ARGS__)
#define HCOL_TEXT(...)  VD_HCOL_TEXT, (__VA_ARGS__)
#define HCOL_WORD(...)  VD_HCOL_WORD, (__VA_ARGS__)
#define WCOL(...)       VD_WCOL, (__VA_ARGS__)
#define WREF(...)       VD_WREF, (__VA_ARGS__)
#define WCOL_REF(...)   VD_WCOL_REF, (__VA_ARGS__)
/* The dashboard's history (core/history.h): HIST(ID, reduce), reduce max, min or last
 * over a record's period for a double; or for a validated bit word (VALUE_V): the union of the words read in the period, low 32 bits. */
#define NO_HIST   VD_NONE, ()
#define HIST(...) VD_HIST, (__VA_ARGS__)

#define VD_SLOT(ctx, ...)         VD_SLOT_(ctx, __VA_ARGS__)
#define VD_SLOT_(ctx, emit, args) VD_CALL(emit, ctx, VD_UNPAREN args)
#define VD_CALL(emit, ...)        emit(__VA_ARGS__)
#define VD_UNPAREN(...)           __VA_ARGS__
#define VD_NONE(...)
/* f(args) with the args macro-expanded first, for an emitter that passes a member on
 * (VD_CALL itself cannot be used inside an emitter: it is being expanded there). */
#define VD_APPLY(f, ...)          f(__VA_ARGS__)
#define VD_MEMBER(ctx)            VD_MEMBER_ ctx
#define VD_MEMBER_(member, valid) member
#define VD_VALID(ctx)             VD_VALID_ ctx
#define VD_VALID_(member, valid)  valid

/* The entries reduced to one slot. An includer that wants one slot of a list aliases
 * the list's entry macros to these (#define VALUE VD_AREA_HIST, VALUE_V and VALUE_S
 * likewise, EXTRA VD_SKIP) and #undefs them after the #include. Only the CSV and history
 * slots read a validity member (the _V pickers): the others take (member, member) as
 * their context. */
#define VD_SKIP(...)
#define VD_EXTRA_METRIC(metric)                                     VD_SLOT((, ), metric)
#define VD_AREA_CSV(type, member, dims, kind, csv, metric, hist)    VD_SLOT((member, member), csv)
#define VD_AREA_V_CSV(type, member, dims, valid, csv, metric, hist) VD_SLOT((member, valid), csv)
#define VD_AREA_METRIC(type, member, dims, kind, csv, metric, hist)                                \
        VD_SLOT((member, member), metric)
#define VD_AREA_HIST(type, member, dims, kind, csv, metric, hist)    VD_SLOT((member, member), hist)
#define VD_AREA_V_HIST(type, member, dims, valid, csv, metric, hist) VD_SLOT((member, valid), hist)

#endif

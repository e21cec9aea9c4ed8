/* Every host-log column form of core/value_def.h (VD_HCOL..., VD_WCOL...) defined to
 * nothing. Included again before each pass over the area tables in core/host_row.c,
 * which then defines only the forms that pass reads; no include guard, on purpose. */
#undef VD_HCOL
#undef VD_HCOL_AT
#undef VD_HCOL_ELSE
#undef VD_HCOL_SUM
#undef VD_HCOL_TIME
#undef VD_HCOL_TEXT
#undef VD_HCOL_CORES
#undef VD_HCOL_FS
#undef VD_HCOL_WORD
#undef VD_WCOL
#undef VD_WREF
#undef VD_WCOL_REF
#define VD_HCOL(...)
#define VD_HCOL_AT(...)
#define VD_HCOL_ELSE(...)
#define VD_HCOL_SUM(...)
#define VD_HCOL_TIME(...)
#define VD_HCOL_TEXT(...)
#define VD_HCOL_CORES(...)
#define VD_HCOL_FS(...)
#define VD_HCOL_WORD(...)
#define VD_WCOL(...)
#define VD_WREF(...)
#define VD_WCOL_REF(...)

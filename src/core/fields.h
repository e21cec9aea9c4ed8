/* Field descriptors: one entry per member of a frame struct (core/frame.h), saying what
 * "missing" is for it. The struct's members and its table come from the same X-macro
 * list (core/gpu_values.def, core/host_values.def), so a member cannot be added to one
 * without the other; frame clearing and its test walk the table. */
#ifndef VIGIL_CORE_FIELDS_H
#define VIGIL_CORE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

enum field_kind {
        FK_KEEP,      /* identity (index, name): survives clearing */
        FK_ZERO,      /* bookkeeping and counts: 0 / false when cleared */
        FK_DOUBLE,    /* a value or array of values: NAN when missing */
        FK_STRING,    /* text: "" when missing */
        FK_VALIDATED, /* an integer or bit mask: 0, and its validity flag false */
        FK_VALID,     /* the validity flag of an FK_VALIDATED field */
        FK_STRUCT,    /* a struct or array of structs, each cleared by its own table */
};

struct field_desc {
        const char *name; /* the member's name */
        enum field_kind kind;
        size_t off, size; /* offsetof and sizeof the member (an array: all of it) */
        size_t valid_off; /* FK_VALIDATED: offsetof its bool validity flag */
        /* FK_STRUCT: the element's table and size (size / elem elements) */
        const struct field_desc *sub;
        const size_t *nsub;
        size_t elem;
};

/* Set every field of the struct at base (size bytes, its members described in member
 * order by t[0..n)) to missing: FK_DOUBLE elements NAN, FK_KEEP fields untouched,
 * FK_STRUCT elements by their own table, every other byte (padding included) zero. */
void fields_clear(void *base, size_t size, const struct field_desc *t, size_t n);

/* Copy the FK_KEEP fields of src into dst (two structs t describes). */
void fields_copy_kept(void *dst, const void *src, const struct field_desc *t, size_t n);

/* Whether field d of the struct at base is missing, as fields_clear leaves it: every
 * element NAN (FK_DOUBLE), "" (FK_STRING), its flag false (FK_VALIDATED), all bytes
 * zero (FK_ZERO, FK_VALID), every field of every element but FK_KEEP ones (FK_STRUCT).
 * FK_KEEP fields are never missing. */
bool field_missing(const void *base, const struct field_desc *d);

#endif

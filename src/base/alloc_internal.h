/* Allocation through the optional caller hooks (zeroed struct: malloc/free). */
#ifndef MB_ALLOC_INTERNAL_H
#define MB_ALLOC_INTERNAL_H

#include <stdlib.h>

#include "mblend/base.h"

static inline void *mb_alloc_(const mb_allocator *a, size_t size)
{
    if (a && a->alloc)
        return a->alloc(size, a->user);
    return malloc(size);
}

static inline void mb_free_(const mb_allocator *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(p, a->user);
    else
        free(p);
}

#endif

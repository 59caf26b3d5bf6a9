// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unwind rows merged as they are made (see row_merge.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "unwind/row_merge.h"

/* One row in sorted order, as merging sorted rows takes it; -EAGAIN when
 * it is not after the last one. */
static int merge_one(struct row_merge *m, const struct raw_row *r)
{
	if (m->any && raw_row__cmp(&m->last, r) >= 0)
		return -EAGAIN;
	if (m->any && m->last.row.pc == r->row.pc) {
		m->last = *r;
		return 0;	/* one row per pc: the first */
	}
	m->any = true;
	m->last = *r;
	if (m->n ? unwind_row__same_rule(&m->out[m->n - 1], &r->row) : r->row.cfa_reg == CFA_NONE)
		return 0;
	if (GROW(m->out, m->cap, m->n + 1))
		return -ENOMEM;
	m->out[m->n++] = r->row;
	return 0;
}

/* The end row held back, before r: taken, or dropped when r (at the same
 * pc, not an end) sorts before it, as merging would skip it after r. */
static int take_end(struct row_merge *m, const struct raw_row *r)
{
	if (!m->has_end)
		return 0;
	m->has_end = false;
	if (r->row.pc == m->end.row.pc && !(r->order & RAW_FDE_END) && raw_row__cmp(r, &m->end) < 0)
		return 0;
	if (raw_row__cmp(&m->end, r) >= 0)
		return -EAGAIN;
	return merge_one(m, &m->end);
}

int row_merge__push(struct row_merge *m, const struct raw_row *r, size_t max)
{
	int err;

	if (++m->made > max)
		return -ENOMEM;
	err = take_end(m, r);
	if (err)
		return err;
	if (!(r->order & RAW_FDE_END))
		return merge_one(m, r);
	if (m->any && raw_row__cmp(&m->last, r) >= 0)
		return -EAGAIN;
	m->end = *r;
	m->has_end = true;
	return 0;
}

int row_merge__end(struct row_merge *m, struct unwind_row **rows, size_t *n)
{
	struct unwind_row *shrunk;
	int err = 0;

	if (m->has_end) {
		m->has_end = false;
		err = merge_one(m, &m->end);
	}
	*rows = NULL;
	*n = 0;
	if (err || !m->n)
		return err;
	shrunk = reallocarray(m->out, m->n, sizeof(*m->out));
	*rows = shrunk ? shrunk : m->out;
	*n = m->n;
	m->out = NULL;
	m->n = m->cap = 0;
	return 0;
}

void row_merge__free(struct row_merge *m)
{
	free(m->out);
	*m = (struct row_merge){ 0 };
}

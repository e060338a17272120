/* An empty program is an error, as DTrace's D_EMPTY: comments and pragmas alone. */
#pragma D option quiet

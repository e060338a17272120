/*
 * Associative arrays with values of struct types (stored whole, copied in
 * and out, a member assigned in place, 0 deleting an element: Oracle's
 * assocs/tst.store_zero_deletes_struct.d) and with keys of struct types
 * (their bytes are the key: illumos's struct/tst.StructAssoc.d).
 */
#pragma D option quiet

struct rec {
	int n;
	char tag[4];
};

struct key {
	int position;
	char content;
};

struct rec r;
struct key k1, k2;
struct rec byname[string];
self struct rec mine[int];

BEGIN
{
	r.n = 1;
	r.tag[0] = 'o';
	a[1] = r;
	r.n = 2;
	a[2] = r;
	r.n = 3;
	a[3] = r;
	a[1] = 0;
	/* a[1] deleted: a member stored makes a new element, zero but for it */
	a[1].n = 9;
	printf("%d %s|%d %d %d\n", a[1].n, a[1].tag, a[2].n, a[3].n, r.n);
	a[2].n += 40;
	a[4].n = 4;
	a[4].tag[0] = 'x';
	printf("%d %d %s\n", a[2].n, a[4].n, a[4].tag);
	byname["one"] = a[4];
	byname["one"].n++;
	self->mine[7] = byname["one"];
	printf("%d %d %s\n", byname["one"].n, self->mine[7].n, self->mine[7].tag);

	k1.position = 1;
	k1.content = 'a';
	k2.position = 1;
	k2.content = 'a';
	keyed[k1] = 1000;
	keyed[k2] = 2000;
	printf("%d %d\n", keyed[k1], keyed[k2]);
	k2.content = 'b';
	printf("%d\n", keyed[k2]);
	exit(0);
}

provider t {
	probe a(int x, widget_t *w);
};

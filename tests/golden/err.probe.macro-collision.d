provider t {
	probe get__key(int x);
	probe get_key(int x);
};

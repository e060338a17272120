provider t {
	probe a(int x);
};
#pragma D attributes Evolving/Evolving/ISA provider u args

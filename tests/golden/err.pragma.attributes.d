provider t {
	probe a(int x);
};
#pragma D attributes Evolving/Sturdy/ISA provider t provider

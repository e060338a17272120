#include "types.h"
provider t {
	probe a(int x);
};

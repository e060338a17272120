/* @target: ticks 3 1 */
/*
 * A clause-local variable is seen by the later clauses of the same fire,
 * and is 0 again in the next fire.
 */
#pragma D option quiet

rt$target:::tick
/arg1 == 0/
{
	this->v = 100;
}

rt$target:::tick
{
	printf("fire %d: this->v is %d\n", arg1, this->v);
	this->v = arg1 + 10;
}

rt$target:::tick
{
	printf("fire %d: this->v is %d\n", arg1, this->v);
}

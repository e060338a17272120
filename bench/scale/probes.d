/* The scale benchmark's provider (bench/scale.sh). */
provider scale {
	probe ev(long thread, long seq);
};

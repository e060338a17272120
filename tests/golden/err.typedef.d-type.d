/* A typedef of a name D has for a type of its own, not a typedef: string. */
typedef long string;

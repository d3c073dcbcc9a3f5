/* A small assertion kit for the tests: count failures, print where, never stop at the first. Under
 * MPI each rank counts its own; a program ends on their sum over the ranks (the same exit status on
 * every rank), and takes no branch that skips collective calls on a condition of one rank's
 * (harness.h's dtrTestAll agrees one). */
#ifndef DTR_TEST_CHECK_H
#define DTR_TEST_CHECK_H

#include <stdio.h>

static int dtrTestFailures = 0;

#define EXPECT(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      dtrTestFailures++;                                                   \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
    }                                                                      \
  } while (0)

/* A test program's result: the count of failures on stderr and 1, or a line saying it passed and 0. */
static int dtrTestEnd(const char* what) {
  if (dtrTestFailures) {
    fprintf(stderr, "%s: %d failures\n", what, dtrTestFailures);
    return 1;
  }
  printf("%s tests passed\n", what);
  return 0;
}

/* ctest's skip code (SKIP_RETURN_CODE 77). */
#define DTR_TEST_SKIP 77

#endif

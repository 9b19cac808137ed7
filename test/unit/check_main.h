/* One Check runner per test executable: prints Check's summary line and exits
 * non-zero when a test failed. */
#ifndef SKOPS_TEST_CHECK_MAIN_H
#define SKOPS_TEST_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#define SKOPS_CHECK_MAIN(suite_fn)                                                                 \
	int main(void)                                                                             \
	{                                                                                          \
		SRunner *sr = srunner_create(suite_fn());                                          \
		srunner_run_all(sr, CK_NORMAL);                                                    \
		int failed = srunner_ntests_failed(sr);                                            \
		srunner_free(sr);                                                                  \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                       \
	}

#endif

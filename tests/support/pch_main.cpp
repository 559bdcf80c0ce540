// The program of tests/CMakeLists.txt's tenferro_test_pch target, which
// exists to compile the tests' precompiled headers; it does nothing.
int main() { return 0; }

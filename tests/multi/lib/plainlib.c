/*
 * A shared library that does not link libuvas (as libc or a driver): its
 * data is nobody's symmetric object (test-shmem-globals-lib.c).
 */
long plainlib_value = 7;

long *plainlib_ptr(void)
{
    return &plainlib_value;
}

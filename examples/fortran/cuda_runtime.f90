! The few CUDA runtime calls the Fortran examples and tests need, bound through iso_c_binding (link
! the CUDA runtime). Codes with CUDA Fortran or OpenACC have their own ways to device memory; the
! library only needs its address as type(c_ptr).
module cuda_runtime
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_size_t
  implicit none
  private
  integer(c_int), parameter, public :: cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2

  public :: cudaMalloc, cudaFree, cudaMemcpy, cudaGetDeviceCount, cudaSetDevice, cudaDeviceSynchronize, &
            cudaGetErrorString

  interface
    integer(c_int) function cudaMalloc(ptr, bytes) bind(c, name="cudaMalloc")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: ptr
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function cudaFree(ptr) bind(c, name="cudaFree")
      import :: c_int, c_ptr
      type(c_ptr), value :: ptr
    end function
    integer(c_int) function cudaMemcpy(dst, src, bytes, kind) bind(c, name="cudaMemcpy")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
      integer(c_int), value :: kind
    end function
    integer(c_int) function cudaGetDeviceCount(count) bind(c, name="cudaGetDeviceCount")
      import :: c_int
      integer(c_int), intent(out) :: count
    end function
    integer(c_int) function cudaSetDevice(device) bind(c, name="cudaSetDevice")
      import :: c_int
      integer(c_int), value :: device
    end function
    integer(c_int) function cudaDeviceSynchronize() bind(c, name="cudaDeviceSynchronize")
      import :: c_int
    end function
    type(c_ptr) function cudaGetErrorString(error) bind(c, name="cudaGetErrorString")
      import :: c_int, c_ptr
      integer(c_int), value :: error
    end function
  end interface
end module cuda_runtime

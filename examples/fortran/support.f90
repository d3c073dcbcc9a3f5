! What the Fortran examples and tests share: the end of a run on a failed call (the library's message
! or the CUDA error, with the rank), and the GPU a rank takes.
module support
  use, intrinsic :: iso_c_binding, only: c_char, c_f_pointer, c_int, c_int64_t, c_ptr
  use mpi_f08
  use disttranspose, only: DTR_SUCCESS, dtr_get_last_error
  use cuda_runtime
  implicit none
  private
  public :: check, cuda, select_node_gpu, example_arguments, grid_arguments

contains

  ! A call of the library that must succeed; else every rank's job ends with its message.
  subroutine check(result, who)
    integer(c_int), intent(in) :: result
    character(len=*), intent(in) :: who
    integer :: rank
    if (result /= DTR_SUCCESS) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      print '(2a, i0, 2a)', who, ': rank ', rank, ': ', dtr_get_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  subroutine cuda(result, who)
    integer(c_int), intent(in) :: result
    character(len=*), intent(in) :: who
    integer :: rank
    if (result /= cudaSuccess) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      print '(2a, i0, a, i0, 3a)', who, ': rank ', rank, ': CUDA error ', result, ' (', trim(cuda_error_name(result)), ')'
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  ! The runtime's description of a CUDA error (up to the first 120 characters).
  function cuda_error_name(result) result(name)
    integer(c_int), intent(in) :: result
    character(len=120) :: name
    character(kind=c_char), pointer :: chars(:)
    integer :: i
    call c_f_pointer(cudaGetErrorString(result), chars, [len(name)])
    name = ''
    do i = 1, len(name)
      if (chars(i) == char(0)) exit
      name(i:i) = chars(i)
    end do
  end function

  ! The GPU of this rank's node-local rank, as the programs on top of the library choose it (ranks
  ! beyond the GPUs share them). The library then works on the current device.
  subroutine select_node_gpu(who)
    character(len=*), intent(in) :: who
    type(MPI_Comm) :: node
    integer :: local
    integer(c_int) :: count
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node)
    call MPI_Comm_rank(node, local)
    call MPI_Comm_free(node)
    call cuda(cudaGetDeviceCount(count), who)
    call cuda(cudaSetDevice(int(mod(local, count), c_int)), who)
  end subroutine

  ! The examples' command line: numbers in order into `numbers` (those not given keep their defaults),
  ! and the word `gpu` anywhere.
  subroutine example_arguments(numbers, gpu)
    integer(c_int64_t), intent(inout) :: numbers(:)
    logical, intent(out) :: gpu
    character(len=32) :: arg
    integer :: i, n
    gpu = .false.
    n = 0
    do i = 1, command_argument_count()
      call get_command_argument(i, arg)
      if (arg == 'gpu') then
        gpu = .true.
      else if (n < size(numbers)) then
        n = n + 1
        read (arg, *) numbers(n)
      end if
    end do
  end subroutine

  ! The 3-D examples' command line, [nx ny nz [pr pc]] [gpu]: the shape (its defaults kept where not
  ! given), the grid's dimensions (0: the library's choice), and with `gpu` this rank's GPU selected.
  subroutine grid_arguments(shape, dims, gpu, who)
    integer(c_int64_t), intent(inout) :: shape(3)
    integer(c_int), intent(out) :: dims(2)
    logical, intent(out) :: gpu
    character(len=*), intent(in) :: who
    integer(c_int64_t) :: numbers(5)
    numbers = [shape, 0_c_int64_t, 0_c_int64_t]
    call example_arguments(numbers, gpu)
    shape = numbers(1:3)
    dims = int(numbers(4:5), c_int)
    if (gpu) call select_node_gpu(who)
  end subroutine

end module support

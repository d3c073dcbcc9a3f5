! What the Fortran tests share: the command line (host arrays on the cpu backend, or device buffers),
! checks that count failures, their agreement across ranks, executes on host arrays or on device
! copies of them, and the end of a run.
!
! No rank may take a branch the others do not: a rank that left a case early would leave the others
! waiting in the case's next collective call. So every result a test branches on is either one the
! library agrees across the ranks (a collective call's) or agreed here (`everywhere`), over the
! communicator of the case.
module test_harness
  use, intrinsic :: iso_c_binding, only: c_associated, c_int, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use disttranspose
  use cuda_runtime
  use support, only: cuda, select_node_gpu
  implicit none
  integer :: failures = 0, cases = 0
  logical :: on_device = .false.
  character(len=16) :: mode = 'host'
  type(dtr_config) :: test_config
  ! The communicator of the case under way: the world, or a split of it.
  type(MPI_Comm) :: case_comm

contains

  ! test_name host | device [auto|nccl|p2p]: the backend of test_config, and the GPU of this rank.
  subroutine start_test(who)
    character(len=*), intent(in) :: who
    character(len=16) :: backend = 'auto'
    integer :: rank
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    case_comm = MPI_COMM_WORLD
    if (command_argument_count() >= 1) call get_command_argument(1, mode)
    if (command_argument_count() >= 2) call get_command_argument(2, backend)
    select case (mode)
    case ('host')
      test_config%backend = DTR_BACKEND_CPU
    case ('device')
      on_device = .true.
      call select_node_gpu(who)
      if (backend == 'nccl') test_config%backend = DTR_BACKEND_NCCL
      if (backend == 'p2p') test_config%backend = DTR_BACKEND_P2P
    case default
      if (rank == 0) print '(4a)', who, ': unknown mode "', trim(mode), '" (host or device [auto|nccl|p2p])'
      call MPI_Abort(MPI_COMM_WORLD, 2)
    end select
  end subroutine

  ! The failures of every rank summed, one line from rank 0 (`what` after the case count), MPI
  ! finalized; every rank stops with 1 where any rank failed.
  subroutine end_test(who, what)
    character(len=*), intent(in) :: who, what
    integer :: rank, ranks, total, all_cases
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, ranks)
    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(cases, all_cases, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
    if (rank == 0) print '(2a, i0, 5a, i0, 3a, i0, a)', who, ': ', ranks, ' ranks, ', trim(mode), ' (', &
      dtr_backend_name(test_config%backend), '): ', all_cases, ' cases', what, ', ', total, ' failures'
    call MPI_Finalize()
    if (total /= 0) error stop 1
  end subroutine

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    integer :: rank
    if (.not. condition) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      failures = failures + 1
      print '(a, i0, 2a)', 'FAIL rank ', rank, ': ', what
    end if
  end subroutine

  subroutine expect_result(got, wanted, what)
    integer(c_int), intent(in) :: got, wanted
    character(len=*), intent(in) :: what
    call expect(got == wanted, what // ': ' // dtr_get_error_string(got) // ' (wanted ' // &
                dtr_get_error_string(wanted) // '): ' // dtr_get_last_error())
  end subroutine

  logical function expect_success(got, what)
    integer(c_int), intent(in) :: got
    character(len=*), intent(in) :: what
    call expect_result(got, DTR_SUCCESS, what)
    expect_success = got == DTR_SUCCESS
  end function

  ! Whether `ok` holds on every rank of case_comm: what every rank branches on.
  logical function everywhere(ok)
    logical, intent(in) :: ok
    call MPI_Allreduce(ok, everywhere, 1, MPI_LOGICAL, MPI_LAND, case_comm)
  end function

  ! A call that must succeed on every rank before the case goes on (a local call's result agreed).
  logical function agreed_success(got, what)
    integer(c_int), intent(in) :: got
    character(len=*), intent(in) :: what
    agreed_success = everywhere(expect_success(got, what))
  end function

  ! A refusal: `wanted` here, and on every other rank of case_comm too.
  subroutine expect_everywhere(got, wanted, what)
    integer(c_int), intent(in) :: got, wanted
    character(len=*), intent(in) :: what
    call expect_result(got, wanted, what)
    call expect(everywhere(got == wanted), what // ': another rank did not get ' // dtr_get_error_string(wanted))
  end subroutine

  ! One execute on host arrays, or on device copies of them (their contents copied back).
  integer(c_int) function run_execute(plan, in, out, in_bytes, out_bytes) result(res)
    type(dtr_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    type(c_ptr) :: din, dout
    if (.not. on_device) then
      res = dtr_execute(plan, in, out)
      return
    end if
    call to_device(in, out, in_bytes, out_bytes, din, dout)
    res = dtr_execute(plan, din, dout)
    call from_device(in, out, in_bytes, out_bytes, din, dout)
  end function

  integer(c_int) function run_fft_execute(plan, in, out, in_bytes, out_bytes, direction) result(res)
    type(dtr_fft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    integer(c_int), intent(in) :: direction
    type(c_ptr) :: din, dout
    if (.not. on_device) then
      res = dtr_fft_execute(plan, in, out, direction)
      return
    end if
    call to_device(in, out, in_bytes, out_bytes, din, dout)
    res = dtr_fft_execute(plan, din, dout, direction)
    call from_device(in, out, in_bytes, out_bytes, din, dout)
  end function

  ! Device copies of an execute's buffers, one for in == out; the output's too, so that an entry
  ! the library leaves unwritten keeps its poison.
  subroutine to_device(in, out, in_bytes, out_bytes, din, dout)
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    type(c_ptr), intent(out) :: din, dout
    call cuda(cudaMalloc(din, in_bytes), 'test_harness')
    call cuda(cudaMemcpy(din, in, in_bytes, cudaMemcpyHostToDevice), 'test_harness')
    dout = din
    if (c_associated(in, out)) return
    call cuda(cudaMalloc(dout, out_bytes), 'test_harness')
    call cuda(cudaMemcpy(dout, out, out_bytes, cudaMemcpyHostToDevice), 'test_harness')
  end subroutine

  ! Both buffers back into the host arrays: the output, and the input, so that the tests' checks of
  ! an untouched input see what the execute left in device memory.
  subroutine from_device(in, out, in_bytes, out_bytes, din, dout)
    type(c_ptr), intent(in) :: in, out, din, dout
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    call cuda(cudaDeviceSynchronize(), 'test_harness')
    call cuda(cudaMemcpy(out, dout, out_bytes, cudaMemcpyDeviceToHost), 'test_harness')
    if (.not. c_associated(in, out)) then
      call cuda(cudaMemcpy(in, din, in_bytes, cudaMemcpyDeviceToHost), 'test_harness')
      call cuda(cudaFree(dout), 'test_harness')
    end if
    call cuda(cudaFree(din), 'test_harness')
  end subroutine

  ! The global index of element k of the entry (row, col) of a matrix, all counting from 0.
  integer(int64) function matrix_index(row, col, cols, howmany, k)
    integer(int64), intent(in) :: row, col, cols, howmany, k
    matrix_index = (row * cols + col) * howmany + k
  end function

  ! The global index of the n-th element (from 1) of a box in memory order: element k of the entry
  ! at (x, y, z) of the whole, ((z * ny + y) * nx + x) * howmany + k.
  integer(int64) function pencil_index(box, shape, howmany, n)
    type(dtr_box), intent(in) :: box
    integer(int64), intent(in) :: shape(3), howmany, n
    integer(int64) :: c(3), rest
    integer :: d, axis
    rest = (n - 1) / howmany
    do d = 1, 3
      axis = box%order(d) + 1
      c(axis) = box%start(axis) + mod(rest, box%size(axis))
      rest = rest / box%size(axis)
    end do
    pencil_index = ((c(3) * shape(2) + c(2)) * shape(1) + c(1)) * howmany + mod(n - 1, howmany)
  end function

end module test_harness

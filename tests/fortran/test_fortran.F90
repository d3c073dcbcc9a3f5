! The Fortran binding under mpiexec, every element type the library has (integer(int8), the two
! 16-bit floats as integer(int16) bits, real(real32/real64), complex(real32/real64)):
!   - 2-D transposes of odd shapes (1, primes, R /= C, fewer rows than ranks), howmany 1 and 3, out
!     of place and in place, compared bit for bit, outputs poisoned, inputs checked untouched;
!   - pencil round trips X -> Y -> Z -> Y -> X on the grid the ranks make;
!   - a sub-communicator (the ranks split by parity, in reverse order) for 2-D and pencil cases;
!   - the integer communicator handle of `use mpi` beside mpi_f08's, the getters, the names, the
!     config defaults against dtrConfigInit;
!   - bad input: the same error on every rank, and a message naming the problem.
! The checks, their agreement across ranks and the executes are harness.f90's.
!
!   test_fortran host                 host arrays, the cpu backend
!   test_fortran device [BACKEND]     device buffers (auto, nccl or p2p), the node-local rank's GPU
! The cases of each type, from one template.
module typed_cases
  use, intrinsic :: iso_c_binding, only: c_loc, c_size_t
  use, intrinsic :: iso_fortran_env, only: int8, int16, int64, real32, real64
  use mpi_f08
  use disttranspose
  use test_harness
  implicit none

contains

#define T_ELEM integer(int8)
#define T_VALUE(g) int(modulo((g) * 37 + 11, 256_int64) - 128, int8)
#define T_TYPE DTR_INT8
#define T_CASE_2D case_2d_int8
#define T_CASE_PENCILS case_pencils_int8
#include "typed_cases.inc"
#undef T_ELEM
#undef T_VALUE
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_ELEM integer(int16)
#define T_VALUE(g) int(modulo((g) * 7919 + 3, 65536_int64) - 32768, int16)
#define T_TYPE DTR_FLOAT16
#define T_CASE_2D case_2d_float16
#define T_CASE_PENCILS case_pencils_float16
#include "typed_cases.inc"
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_TYPE DTR_BFLOAT16
#define T_CASE_2D case_2d_bfloat16
#define T_CASE_PENCILS case_pencils_bfloat16
#include "typed_cases.inc"
#undef T_ELEM
#undef T_VALUE
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_ELEM real(real32)
#define T_VALUE(g) (real(modulo(g, 4194304_int64), real32) + 0.25_real32)
#define T_TYPE DTR_FLOAT32
#define T_CASE_2D case_2d_real32
#define T_CASE_PENCILS case_pencils_real32
#include "typed_cases.inc"
#undef T_ELEM
#undef T_VALUE
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_ELEM real(real64)
#define T_VALUE(g) (real(g, real64) + 0.125_real64)
#define T_TYPE DTR_FLOAT64
#define T_CASE_2D case_2d_real64
#define T_CASE_PENCILS case_pencils_real64
#include "typed_cases.inc"
#undef T_ELEM
#undef T_VALUE
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_ELEM complex(real32)
#define T_VALUE(g) cmplx(real(modulo(g, 2097152_int64), real32) + 0.5_real32, -real(modulo(g, 2097152_int64), real32) - 0.25_real32, real32)
#define T_TYPE DTR_COMPLEX64
#define T_CASE_2D case_2d_complex64
#define T_CASE_PENCILS case_pencils_complex64
#include "typed_cases.inc"
#undef T_ELEM
#undef T_VALUE
#undef T_TYPE
#undef T_CASE_2D
#undef T_CASE_PENCILS

#define T_ELEM complex(real64)
#define T_VALUE(g) cmplx(real(g, real64) + 0.5_real64, -real(g, real64) - 0.25_real64, real64)
#define T_TYPE DTR_COMPLEX128
#define T_CASE_2D case_2d_complex128
#define T_CASE_PENCILS case_pencils_complex128
#include "typed_cases.inc"

  ! Every type's 2-D case on one shape.
  subroutine case_2d_every_type(rows, cols, howmany, inplace)
    integer(int64), intent(in) :: rows, cols, howmany
    logical, intent(in) :: inplace
    call case_2d_int8(rows, cols, howmany, inplace)
    call case_2d_float16(rows, cols, howmany, inplace)
    call case_2d_bfloat16(rows, cols, howmany, inplace)
    call case_2d_real32(rows, cols, howmany, inplace)
    call case_2d_real64(rows, cols, howmany, inplace)
    call case_2d_complex64(rows, cols, howmany, inplace)
    call case_2d_complex128(rows, cols, howmany, inplace)
  end subroutine

  subroutine case_pencils_every_type(grid, shape, howmany)
    type(dtr_grid), intent(in) :: grid
    integer(int64), intent(in) :: shape(3), howmany
    call case_pencils_int8(grid, shape, howmany)
    call case_pencils_float16(grid, shape, howmany)
    call case_pencils_bfloat16(grid, shape, howmany)
    call case_pencils_real32(grid, shape, howmany)
    call case_pencils_real64(grid, shape, howmany)
    call case_pencils_complex64(grid, shape, howmany)
    call case_pencils_complex128(grid, shape, howmany)
  end subroutine

end module typed_cases

program test_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_loc, c_null_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use test_harness
  use typed_cases
  implicit none

  integer(int64), parameter :: shapes(2, 8) = reshape([1, 1, 1, 5, 5, 1, 2, 7, 13, 11, 31, 17, 7, 64, 97, 3], [2, 8])
  integer(int64), parameter :: boxes(3, 3) = reshape([5, 7, 3, 1, 4, 6, 8, 6, 4], [3, 3])
  integer(int64) :: howmany(2) = [1, 3]
  type(dtr_grid) :: grid
  type(MPI_Comm) :: sub
  integer :: rank, ranks, s, h

  call start_test('test_fortran')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call check_defaults_and_names()
  call check_plan_facts()
  call check_bad_input()
  do s = 1, size(shapes, 2)
    do h = 1, size(howmany)
      call case_2d_every_type(shapes(1, s), shapes(2, s), howmany(h), .false.)
      if (s == 4 .or. s == 5) call case_2d_every_type(shapes(1, s), shapes(2, s), howmany(h), .true.)
    end do
  end do
  if (expect_success(dtr_grid_create(grid, MPI_COMM_WORLD), 'grid create')) then
    do s = 1, size(boxes, 2)
      do h = 1, 2
        call case_pencils_every_type(grid, boxes(:, s), int(h, int64))
      end do
    end do
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end if
  ! The same on a sub-communicator: even and odd ranks apart, each part's ranks in reverse order.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), ranks - rank, sub)
  case_comm = sub
  call case_2d_every_type(shapes(1, 6), shapes(2, 6), 3_int64, .false.)
  if (expect_success(dtr_grid_create(grid, sub), 'grid create on a sub-communicator')) then
    call case_pencils_every_type(grid, boxes(:, 1), 2_int64)
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end if
  case_comm = MPI_COMM_WORLD
  call MPI_Comm_free(sub)

  call expect(cases == 7 * size(howmany) * (size(shapes, 2) + 2) + 7 * 2 * size(boxes, 2) + 14, 'not every case ran')
  call end_test('test_fortran', '')

contains

  ! The defaults of dtr_config agree with dtrConfigInit's; names and sizes come from the library.
  subroutine check_defaults_and_names()
    type(dtr_config) :: initialized, declared
    call dtr_config_init(initialized)
    call expect(initialized%backend == declared%backend .and. initialized%kernel == declared%kernel .and. &
                initialized%device == declared%device .and. initialized%stages == declared%stages .and. &
                initialized%workspace == declared%workspace .and. initialized%inplace == declared%inplace .and. &
                initialized%timeout == declared%timeout, 'dtr_config defaults differ from dtrConfigInit')
    call expect(dtr_data_type_name(DTR_COMPLEX128) == 'c128', 'type name: ' // dtr_data_type_name(DTR_COMPLEX128))
    call expect(dtr_backend_name(DTR_BACKEND_CPU) == 'cpu', 'backend name')
    call expect(dtr_kernel_name(DTR_KERNEL_TMA) == 'tma', 'kernel name: ' // dtr_kernel_name(DTR_KERNEL_TMA))
    call expect(dtr_pencil_name(DTR_PENCIL_Y) == 'Y', 'pencil name')
    call expect(dtr_get_error_string(DTR_TIMEOUT) == 'timeout', 'error string')
    call expect(dtr_data_type_size(DTR_COMPLEX128) == 16 .and. dtr_data_type_size(DTR_BFLOAT16) == 2, 'type sizes')
  end subroutine

  ! A plan through the integer handle of `use mpi`; the getters; the local sizes add up.
  subroutine check_plan_facts()
    type(dtr_plan) :: plan
    type(dtr_local_size) :: mine
    integer(c_int) :: got, pr, pc, a, b
    integer(c_size_t) :: bytes
    integer(int64) :: rows_sum
    integer :: r
    rows_sum = 0
    do r = 0, ranks - 1
      if (expect_success(dtr_get_local_size(10_int64, 3_int64, DTR_FLOAT64, 2_int64, MPI_COMM_WORLD%MPI_VAL, r, mine), &
                         'local size of a rank')) rows_sum = rows_sum + mine%in_rows
    end do
    call expect(rows_sum == 10 .and. mine%entry_bytes == 16, 'local sizes do not add up')
    if (.not. expect_success(dtr_plan_create(plan, 10_int64, 3_int64, DTR_FLOAT64, 2_int64, MPI_COMM_WORLD%MPI_VAL, &
                                             test_config), 'plan on an integer handle')) return
    call expect_result(dtr_plan_get_backend(plan, got), DTR_SUCCESS, 'get backend')
    if (on_device) then
      call expect(got == DTR_BACKEND_NCCL .or. got == DTR_BACKEND_P2P, 'device plan on ' // dtr_backend_name(got))
    else
      call expect(got == DTR_BACKEND_CPU, 'host plan on ' // dtr_backend_name(got))
    end if
    call expect_result(dtr_plan_get_stages(plan, got), DTR_SUCCESS, 'get stages')
    call expect(got >= 1, 'stages')
    call expect_result(dtr_plan_get_kernel(plan, got), DTR_SUCCESS, 'get kernel')
    call expect_result(dtr_plan_get_device(plan, got), DTR_SUCCESS, 'get device')
    call expect_result(dtr_plan_get_workspace_size(plan, bytes), DTR_SUCCESS, 'get workspace size')
    call expect_result(dtr_plan_destroy(plan), DTR_SUCCESS, 'plan destroy')
    call expect(.not. c_associated_plan(plan), 'destroyed plan keeps its handle')
    if (expect_success(dtr_grid_create(grid, MPI_COMM_WORLD%MPI_VAL), 'grid on an integer handle')) then
      call expect_result(dtr_grid_get_dims(grid, pr, pc, a, b), DTR_SUCCESS, 'grid dims')
      call expect(pr * pc == ranks .and. a >= 0 .and. a < pr .and. b >= 0 .and. b < pc, 'grid dims')
      call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
    end if
  end subroutine

  logical function c_associated_plan(plan)
    use, intrinsic :: iso_c_binding, only: c_associated
    type(dtr_plan), intent(in) :: plan
    c_associated_plan = c_associated(plan%handle)
  end function

  ! Every rank gets the same error, and a message that names the problem.
  subroutine check_bad_input()
    type(dtr_plan) :: plan
    integer(c_int) :: type
    real(real64), target :: one(1)
    call expect_everywhere(dtr_plan_create(plan, -1_int64, 4_int64, DTR_FLOAT32, 1_int64, MPI_COMM_WORLD, test_config), &
                           DTR_INVALID_ARGUMENT, 'negative rows')
    call expect(index(dtr_get_last_error(), 'rows') > 0, 'message without "rows": ' // dtr_get_last_error())
    call expect_everywhere(dtr_plan_create(plan, 4_int64, 4_int64, 99_c_int, 1_int64, MPI_COMM_WORLD, test_config), &
                           DTR_INVALID_ARGUMENT, 'unknown type')
    call expect(index(dtr_get_last_error(), 'type') > 0, 'message without "type": ' // dtr_get_last_error())
    ! A type that differs on the last rank.
    type = DTR_FLOAT32
    if (rank == ranks - 1 .and. ranks > 1) type = DTR_FLOAT64
    if (ranks > 1) then
      call expect_everywhere(dtr_plan_create(plan, 4_int64, 4_int64, type, 1_int64, MPI_COMM_WORLD, test_config), &
                             DTR_MISMATCH, 'type differing between ranks')
      call expect(len(dtr_get_last_error()) > 0, 'no message for differing types')
    end if
    ! Null buffers: refused on every rank (those that own nothing too), nothing run.
    if (expect_success(dtr_plan_create(plan, 7_int64, 5_int64, DTR_FLOAT64, 1_int64, MPI_COMM_WORLD, test_config), &
                       'plan for null buffers')) then
      call expect_everywhere(dtr_execute(plan, c_null_ptr, c_loc(one)), DTR_INVALID_ARGUMENT, 'null input')
      call expect_result(dtr_plan_destroy(plan), DTR_SUCCESS, 'plan destroy')
    end if
  end subroutine

end program test_fortran

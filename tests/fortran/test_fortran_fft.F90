! The Fortran binding's 3-D FFT (dtr_fft_*) under mpiexec, on every grid the rank count factors
! into (slabs 1 x P, pencils), against a direct DFT of the whole array that every rank computes from
! the same formula (double precision, separable, no FFT library involved):
!   - C2C complex(real32/real64), R2C real(real32/real64) with even and odd nx, every normalization,
!     chunk counts 1, 2 and 3, out of place and (C2C) in place, shapes with empty boxes (nz below
!     the grid's pc, 1 x 1 x 1); one field, and 2 or 3 (config%howmany) each against its DFT;
!   - the forward against the DFT, the round trip back, as relative L2 errors over all ranks
!     (complex(real64) 1e-12, complex(real32) 1e-5); outputs poisoned, inputs checked untouched;
!   - the arrays as the Fortran views of docs/fortran.md: x(howmany, nx, ny_local, nz_local) in,
!     z(howmany, nz, nx_local, ny_local) out (the fields first, a view of rank 4 for one field too);
!   - config%padding: a padded plan's boxes and round trip of its kept modes (test_fft covers it whole);
!   - the config's defaults against dtrFftConfigInit; bad input (kind, type, shape, config, direction,
!     R2C in place, a setting that differs between ranks): the same error on every rank.
!
!   test_fortran_fft host                 host arrays, the cpu backend
!   test_fortran_fft device [BACKEND]     device buffers (auto, nccl or p2p), the node-local rank's GPU
module fft_reference
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use test_harness
  implicit none
  complex(real64) :: poison
  ! Cases where some rank's input or output box was empty.
  integer :: empty_cases = 0

contains

  ! The whole input at (x, y, z), from 0, of field `field` (from 0): values in [-1, 1) from the global
  ! index, exact in real64 and the same on every rank. R2C takes the real part.
  complex(real64) function input_value(c, shape, field)
    integer(int64), intent(in) :: c(3), shape(3), field
    integer(int64) :: g
    g = c(1) + shape(1) * (c(2) + shape(2) * c(3)) + 7 * field
    input_value = cmplx(real(modulo(g * 7919 + 17, 2003_int64), real64) / 1001.5_real64 - 1, &
                        real(modulo(g * 104729 + 5, 1999_int64), real64) / 999.5_real64 - 1, real64)
  end function

  ! The forward DFT (exp(-2 pi i ...), unscaled) of a whole array, one axis after the other.
  subroutine dft3(a)
    complex(real64), intent(inout) :: a(:, :, :)
    integer :: i, j, k
    do k = 1, size(a, 3)
      do j = 1, size(a, 2)
        a(:, j, k) = dft(a(:, j, k))
      end do
    end do
    do k = 1, size(a, 3)
      do i = 1, size(a, 1)
        a(i, :, k) = dft(a(i, :, k))
      end do
    end do
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        a(i, j, :) = dft(a(i, j, :))
      end do
    end do
  end subroutine

  function dft(v) result(w)
    complex(real64), intent(in) :: v(:)
    complex(real64) :: w(size(v)), twiddle(0:size(v) - 1)
    real(real64), parameter :: two_pi = 2 * acos(-1.0_real64)
    integer :: n, j, k
    n = size(v)
    do j = 0, n - 1
      twiddle(j) = cmplx(cos(two_pi * j / n), -sin(two_pi * j / n), real64)
    end do
    do k = 0, n - 1
      w(k + 1) = sum(v * twiddle(mod(k * [(j, j = 0, n - 1)], n)))
    end do
  end function

  ! Squared distance and squared size, summed over the entries a rank compares.
  subroutine add_error(sums, got, wanted)
    real(real64), intent(inout) :: sums(2)
    complex(real64), intent(in) :: got, wanted
    sums = sums + [abs(got - wanted)**2, abs(wanted)**2]
  end subroutine

  ! The relative L2 error over every rank of case_comm (a NaN never passes).
  subroutine expect_within(sums, tolerance, what)
    real(real64), intent(in) :: sums(2), tolerance
    character(len=*), intent(in) :: what
    real(real64) :: all(2), error
    character(len=12) :: text
    call MPI_Allreduce(sums, all, 2, MPI_DOUBLE_PRECISION, MPI_SUM, case_comm)
    error = sqrt(all(1))
    if (all(2) > 0) error = sqrt(all(1) / all(2))
    write (text, '(es12.3)') error
    call expect(error <= tolerance, what // ' error' // text)
  end subroutine

  function case_name(kind, type, shape, norm, chunks, inplace, grid, howmany) result(name)
    integer(c_int), intent(in) :: kind, type, norm, chunks
    integer(int64), intent(in) :: shape(3), howmany
    logical, intent(in) :: inplace
    type(dtr_grid), intent(in) :: grid
    character(len=:), allocatable :: name
    character(len=120) :: text
    character(len=7), parameter :: norms(0:2) = ['none   ', 'inverse', 'ortho  ']
    character(len=3), parameter :: kinds(0:1) = ['C2C', 'R2C']
    integer(c_int) :: pr, pc
    if (dtr_grid_get_dims(grid, pr, pc) /= DTR_SUCCESS) pr = -1
    write (text, '(2a, i0, a, i0, a, i0, 3a, i0, a, i0, 3a, i0)') kinds(kind), ' ', shape(1), ' x ', shape(2), ' x ', &
      shape(3), ' ', dtr_data_type_name(type), ' on ', pr, ' x ', pc, ', norm ', trim(norms(norm)), ', chunks ', chunks
    name = trim(text)
    if (inplace) name = name // ', in place'
    if (howmany > 1) then
      write (text, '(a, i0)') ', howmany ', howmany
      name = name // trim(text)
    end if
  end function

end module fft_reference

! The case of each transform, from one template (which undefines its macros after each).
module typed_fft_cases
  use, intrinsic :: iso_c_binding, only: c_associated, c_f_pointer, c_int, c_loc, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: int8, int64, real32, real64
  use mpi_f08
  use disttranspose
  use test_harness
  use fft_reference
  implicit none

contains

#define T_IN complex(real32)
#define T_OUT complex(real32)
#define T_ENTRY(v) cmplx(v, kind=real32)
#define T_FFT DTR_FFT_C2C
#define T_TYPE DTR_COMPLEX64
#define T_TOLERANCE 1e-5_real64
#define T_CASE fft_c2c_complex64
#include "fft_cases.inc"

#define T_IN complex(real64)
#define T_OUT complex(real64)
#define T_ENTRY(v) cmplx(v, kind=real64)
#define T_FFT DTR_FFT_C2C
#define T_TYPE DTR_COMPLEX128
#define T_TOLERANCE 1e-12_real64
#define T_CASE fft_c2c_complex128
#include "fft_cases.inc"

#define T_IN real(real32)
#define T_OUT complex(real32)
#define T_ENTRY(v) real(v, real32)
#define T_FFT DTR_FFT_R2C
#define T_TYPE DTR_FLOAT32
#define T_TOLERANCE 1e-5_real64
#define T_CASE fft_r2c_real32
#include "fft_cases.inc"

#define T_IN real(real64)
#define T_OUT complex(real64)
#define T_ENTRY(v) real(v, real64)
#define T_FFT DTR_FFT_R2C
#define T_TYPE DTR_FLOAT64
#define T_TOLERANCE 1e-12_real64
#define T_CASE fft_r2c_real64
#include "fft_cases.inc"

end module typed_fft_cases

program test_fortran_fft
  use, intrinsic :: iso_c_binding, only: c_associated, c_int, c_loc, c_size_t
  use, intrinsic :: ieee_arithmetic, only: ieee_quiet_nan, ieee_value
  use, intrinsic :: iso_fortran_env, only: int8, int64, real64
  use mpi_f08
  use disttranspose
  use test_harness
  use fft_reference
  use typed_fft_cases
  implicit none

  ! Even and odd nx; nz = 2 below the pc of slabs on 3 and 4 ranks; 1 x 1 x 1 empty almost everywhere.
  integer(int64), parameter :: shapes(3, 5) = reshape([8, 6, 5, 9, 7, 4, 5, 3, 2, 1, 1, 1, 17, 12, 10], [3, 5])
  type(dtr_grid) :: grid
  integer :: ranks, pr, s, t, n, fields
  integer(int64) :: howmany
  integer(c_int) :: norm, chunks
  logical :: inplace
  character(len=40) :: empty

  call start_test('test_fortran_fft')
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  poison = cmplx(ieee_value(0.0_real64, ieee_quiet_nan), ieee_value(0.0_real64, ieee_quiet_nan), real64)
  call check_config()
  call check_padding()
  ! Every grid of this rank count, every shape and transform; the norms, chunk counts and in place
  ! taken in turn so that each transform meets every norm on every grid.
  n = 0
  do pr = 1, ranks
    if (mod(ranks, pr) /= 0) cycle
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD, pr, ranks / pr), 'grid create')) cycle
    ! One field, then 2 or 3 (config%howmany), every shape and transform.
    do fields = 1, 2
      do s = 1, size(shapes, 2)
        do t = 1, 4
          norm = int(mod(n, 3), c_int)
          chunks = int(mod(n / 3 + s, 3) + 1, c_int)
          inplace = t <= 2 .and. mod(n, 5) == 1
          howmany = 1
          if (fields == 2) howmany = 2 + mod(n, 2)
          select case (t)
          case (1)
            call fft_c2c_complex64(grid, shapes(:, s), norm, chunks, inplace, howmany)
          case (2)
            call fft_c2c_complex128(grid, shapes(:, s), norm, chunks, inplace, howmany)
          case (3)
            call fft_r2c_real32(grid, shapes(:, s), norm, chunks, .false., howmany)
          case (4)
            call fft_r2c_real64(grid, shapes(:, s), norm, chunks, .false., howmany)
          end select
          n = n + 1
        end do
      end do
    end do
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end do
  call check_bad_input()

  call expect(cases == n, 'not every case ran')
  if (ranks >= 3) call expect(empty_cases > 0, 'no case had an empty box')
  write (empty, '(a, i0, a)') ' (', empty_cases, ' with an empty box)'
  call end_test('test_fortran_fft', trim(empty))

contains

  ! The defaults of dtr_fft_config agree with dtrFftConfigInit's, its transpose part with dtrConfigInit's.
  subroutine check_config()
    type(dtr_fft_config) :: initialized, declared
    call dtr_fft_config_init(initialized)
    call expect(initialized%chunks == declared%chunks .and. initialized%norm == declared%norm .and. &
                initialized%howmany == declared%howmany .and. all(initialized%padding == declared%padding) .and. &
                all(initialized%axes == declared%axes) .and. all(declared%axes == DTR_FFT_PERIODIC), &
                'dtr_fft_config defaults differ from dtrFftConfigInit')
    call expect(initialized%transpose%backend == declared%transpose%backend .and. &
                initialized%transpose%kernel == declared%transpose%kernel .and. &
                initialized%transpose%device == declared%transpose%device .and. &
                initialized%transpose%stages == declared%transpose%stages .and. &
                initialized%transpose%workspace == declared%transpose%workspace .and. &
                initialized%transpose%inplace == declared%transpose%inplace .and. &
                initialized%transpose%timeout == declared%transpose%timeout, &
                'dtr_fft_config%transpose defaults differ from dtrFftConfigInit')
  end subroutine

  ! config%padding (the 3/2 rule) through the Fortran type: a C2C plan of 6 x 5 x 4 modes padded to
  ! 9 x 7 x 6, its boxes (the padded grid's X-pencil, dtr_fft_local_box's alike), the kept modes through
  ! the inverse and the forward back to themselves (norm inverse); bad factors refused by name.
  subroutine check_padding()
    integer(int64), parameter :: shape(3) = [6, 5, 4], padded(3) = [9, 7, 6]
    type(dtr_fft_config) :: config, bad
    type(dtr_fft_plan) :: plan
    type(dtr_box) :: ib, ob, want
    complex(real64), allocatable, target :: modes(:), field(:), back(:)
    real(real64) :: sums(2)
    integer(int64) :: i, x, y, z
    integer :: side

    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD), 'grid for padding')) return
    config%transpose = test_config
    config%norm = DTR_FFT_NORM_INVERSE
    config%padding = 1.5_real64
    if (expect_success(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, config), 'padded plan')) then
      call expect_result(dtr_fft_get_box(plan, DTR_FFT_INPUT_SIDE, ib), DTR_SUCCESS, 'padded input box')
      call expect_result(dtr_fft_get_box(plan, DTR_FFT_OUTPUT_SIDE, ob), DTR_SUCCESS, 'padded output box')
      call expect_result(dtr_pencil_box(grid, padded, DTR_PENCIL_X, DTR_COMPLEX128, 1_int64, want), DTR_SUCCESS, 'X box')
      call expect(all(ib%start == want%start) .and. all(ib%size == want%size), 'the padded input box is not the X-pencil of m')
      do side = 0, 1
        call expect_result(dtr_fft_local_box(grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, int(side, c_int), want, config), &
                           DTR_SUCCESS, 'dtr_fft_local_box')
        if (side == 0) call expect(all(want%start == ib%start) .and. all(want%size == ib%size) .and. &
                                   want%bytes == ib%bytes, 'dtr_fft_local_box differs from the input box')
        if (side == 1) call expect(all(want%start == ob%start) .and. all(want%size == ob%size) .and. &
                                   want%bytes == ob%bytes, 'dtr_fft_local_box differs from the output box')
      end do
      ! The kept modes, z(nz, nx_local, ny_local), from the formula at their global index.
      allocate (modes(max(1_int64, product(ob%size))), back(max(1_int64, product(ob%size))))
      allocate (field(max(1_int64, product(ib%size))))
      i = 0
      do y = ob%start(2), ob%start(2) + ob%size(2) - 1
        do x = ob%start(1), ob%start(1) + ob%size(1) - 1
          do z = 0, shape(3) - 1
            i = i + 1
            modes(i) = input_value([x, y, z], shape, 0_int64)
          end do
        end do
      end do
      field = poison
      back = poison
      call expect_result(run_fft_execute(plan, c_loc(modes), c_loc(field), bytes(modes), bytes(field), DTR_FFT_INVERSE), &
                         DTR_SUCCESS, 'padded inverse')
      call expect_result(run_fft_execute(plan, c_loc(field), c_loc(back), bytes(field), bytes(back), DTR_FFT_FORWARD), &
                         DTR_SUCCESS, 'padded forward')
      sums = 0
      do i = 1, product(ob%size)
        call add_error(sums, back(i), modes(i))
      end do
      call expect_within(sums, 1e-12_real64, 'padded round trip')
      call expect_result(dtr_fft_plan_destroy(plan), DTR_SUCCESS, 'padded plan destroy')
    end if
    bad = config
    bad%padding(2) = 0.5_real64
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, bad), DTR_INVALID_ARGUMENT, &
                 'padding 0.5', 'config.padding[1]')
    bad = config
    bad%norm = DTR_FFT_NORM_ORTHO
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, bad), DTR_INVALID_ARGUMENT, &
                 'padding with norm ortho', 'dtrFftNormOrtho')
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end subroutine

  ! Every rank gets the same error, whichever rank's argument was bad, and a refused execute writes
  ! nothing.
  subroutine check_bad_input()
    integer(int64), parameter :: shape(3) = [12, 10, 9]
    type(dtr_fft_config) :: config, bad
    type(dtr_fft_plan) :: plan
    type(dtr_box) :: ib, ob
    real(real64), allocatable, target :: in(:)
    complex(real64), allocatable, target :: out(:)
    integer(c_int) :: direction, type
    integer :: rank

    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD), 'grid for bad input')) return
    config%transpose = test_config
    ! Without a config: the defaults, refused before they matter.
    call refused(dtr_fft_plan_create(plan, grid, shape, 7_c_int, DTR_COMPLEX64), DTR_INVALID_ARGUMENT, 'kind 7', 'kind')
    call expect(.not. c_associated(plan%handle), 'a refused plan has a handle')
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_R2C, DTR_COMPLEX64, config), DTR_INVALID_ARGUMENT, &
                 'R2C of complex64', 'R2C')
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_FLOAT32, config), DTR_INVALID_ARGUMENT, &
                 'C2C of real32', 'C2C')
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_INT8, config), DTR_INVALID_ARGUMENT, &
                 'C2C of int8', 'C2C')
    call refused(dtr_fft_plan_create(plan, grid, [12_int64, 0_int64, 9_int64], DTR_FFT_C2C, DTR_COMPLEX64, config), &
                 DTR_INVALID_ARGUMENT, 'ny = 0', 'ny')
    bad = config
    bad%chunks = DTR_FFT_MAX_CHUNKS + 1
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_INVALID_ARGUMENT, &
                 'chunks beyond DTR_FFT_MAX_CHUNKS', 'chunks')
    bad = config
    bad%norm = 3
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_INVALID_ARGUMENT, &
                 'norm 3', 'norm')
    bad = config
    bad%howmany = -1
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_INVALID_ARGUMENT, &
                 'howmany -1', 'howmany')
    bad = config
    bad%transpose%inplace = 1
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_INVALID_ARGUMENT, &
                 'transpose%inplace', 'inplace')
    bad = config
    if (rank == ranks - 1) bad%chunks = -1
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_INVALID_ARGUMENT, &
                 'chunks -1 on the last rank', 'chunks')
    if (ranks > 1) then
      bad = config
      bad%chunks = merge(2, 3, rank == 0)
      call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX64, bad), DTR_MISMATCH, &
                   'chunks differing between ranks', '')
      type = merge(DTR_COMPLEX64, DTR_COMPLEX128, rank == 0)
      call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, type, config), DTR_MISMATCH, &
                   'type differing between ranks', '')
    end if

    if (expect_success(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_R2C, DTR_FLOAT64, config), 'R2C plan')) then
      call expect_result(dtr_fft_get_box(plan, DTR_FFT_INPUT_SIDE, ib), DTR_SUCCESS, 'input box')
      call expect_result(dtr_fft_get_box(plan, DTR_FFT_OUTPUT_SIDE, ob), DTR_SUCCESS, 'output box')
      allocate (in(max(1_int64, product(ib%size), 2 * product(ob%size))), out(max(1_int64, product(ob%size))))
      in = 1
      out = poison
      call refused(run_fft_execute(plan, c_loc(in), c_loc(out), bytes(in), bytes(out), 0_c_int), DTR_INVALID_ARGUMENT, &
                   'direction 0', 'direction')
      if (ranks > 1) then
        direction = merge(DTR_FFT_FORWARD, 2_c_int, rank == 0)
        call refused(run_fft_execute(plan, c_loc(in), c_loc(out), bytes(in), bytes(out), direction), &
                     DTR_INVALID_ARGUMENT, 'direction 2 on all ranks but rank 0', 'direction')
      end if
      call refused(run_fft_execute(plan, c_loc(in), c_loc(in), bytes(in), bytes(in), DTR_FFT_FORWARD), &
                   DTR_INVALID_ARGUMENT, 'R2C in place', 'place')
      call expect(all(transfer(out, [0_int8]) == transfer(poison, [0_int8])), 'a refused execute wrote into out')
      call refused(dtr_fft_get_box(plan, 2_c_int, ib), DTR_INVALID_ARGUMENT, 'side 2', 'side')
      call expect_result(dtr_fft_plan_destroy(plan), DTR_SUCCESS, 'R2C plan destroy')
    end if
    call expect_result(dtr_fft_plan_destroy(plan), DTR_INVALID_ARGUMENT, 'destroy of a null plan')
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end subroutine

  ! `wanted` on every rank, and a message with `word` in it.
  subroutine refused(got, wanted, what, word)
    integer(c_int), intent(in) :: got, wanted
    character(len=*), intent(in) :: what, word
    call expect_everywhere(got, wanted, what)
    call expect(index(dtr_get_last_error(), word) > 0 .and. len(dtr_get_last_error()) > 0, &
                what // ': the message does not name "' // word // '": ' // dtr_get_last_error())
  end subroutine

  integer(c_size_t) function bytes(a)
    class(*), intent(in) :: a(:)
    bytes = int(size(a, kind=int64) * storage_size(a) / 8, c_size_t)
  end function

end program test_fortran_fft

! The Fortran binding's per-axis kinds of an FFT plan (dtr_fft_config%axes: DTR_FFT_DCT2, DTR_FFT_DCT3,
! DTR_FFT_DST2, DTR_FFT_DST3) under mpiexec, on every grid the rank count factors into, against sums of
! the whole array that every rank computes from the kinds' definitions, axis by axis (double precision,
! no FFT library involved):
!   - R2C real(real64) with a DST-II on z (walls at z; x and y periodic): the half spectrum;
!   - C2C complex(real64) with a DCT-II on y and a DST-III on z;
!   - a real plan, R2C real(real64) with a DCT-III on x, a DCT-II on y and a DST-III on z: both sides
!     real arrays of the input's shape;
!   each forward against the sums, and the round trip (norm inverse, whose N counts 2n along a
!   real-to-real axis) back to the input, as relative L2 errors over all ranks (1e-12); outputs
!   poisoned first, inputs checked untouched; the arrays as docs/fortran.md's views, x(nx, ny_local,
!   nz_local) in, z(nz, nx_local, ny_local) out;
!   - refusals on every rank: norm ortho with a real-to-real axis, an R2C plan with a real-to-real x
!     and a periodic y or z, a kind beyond DTR_FFT_DST3, and axes that differ between ranks.
!
!   test_fortran_fft_r2r host                 host arrays, the cpu backend
!   test_fortran_fft_r2r device [BACKEND]     device buffers (auto, nccl or p2p), the node-local rank's GPU
module r2r_reference
  use, intrinsic :: iso_c_binding, only: c_int, c_loc, c_ptr, c_size_t
  use, intrinsic :: ieee_arithmetic, only: ieee_quiet_nan, ieee_value
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use test_harness
  implicit none

contains

  ! The whole input at (x, y, z), from 0: values in [-1, 1) from the global index, the same on every
  ! rank (a real plan and R2C take the real part).
  complex(real64) function input_value(c, shape)
    integer(int64), intent(in) :: c(3), shape(3)
    integer(int64) :: g
    g = c(1) + shape(1) * (c(2) + shape(2) * c(3))
    input_value = cmplx(real(modulo(g * 7919 + 17, 2003_int64), real64) / 1001.5_real64 - 1, &
                        real(modulo(g * 104729 + 5, 1999_int64), real64) / 999.5_real64 - 1, real64)
  end function

  ! One axis's unnormalized forward transform of `kind` from its definition: the DFT
  ! (exp(-2 pi i jk / n)), DCT-II y_k = 2 sum x_j cos(pi (2j + 1) k / 2n), DCT-III y_k = x_0 +
  ! 2 sum_{j>=1} x_j cos(pi j (2k + 1) / 2n), DST-II y_k = 2 sum x_j sin(pi (2j + 1)(k + 1) / 2n),
  ! DST-III y_k = (-1)^k x_{n-1} + 2 sum_{j<n-1} x_j sin(pi (j + 1)(2k + 1) / 2n).
  function along(v, kind) result(w)
    complex(real64), intent(in) :: v(:)
    integer(c_int), intent(in) :: kind
    complex(real64) :: w(size(v))
    real(real64), parameter :: pi = acos(-1.0_real64)
    real(real64) :: t
    integer :: n, j, k
    n = size(v)
    w = 0
    do k = 0, n - 1
      do j = 0, n - 1
        select case (kind)
        case (DTR_FFT_PERIODIC)
          t = 2 * pi * real(mod(j * k, n), real64) / n
          w(k + 1) = w(k + 1) + v(j + 1) * cmplx(cos(t), -sin(t), real64)
        case (DTR_FFT_DCT2)
          w(k + 1) = w(k + 1) + 2 * v(j + 1) * cos(pi * real((2 * j + 1) * k, real64) / (2 * n))
        case (DTR_FFT_DCT3)
          if (j == 0) then
            w(k + 1) = w(k + 1) + v(1)
          else
            w(k + 1) = w(k + 1) + 2 * v(j + 1) * cos(pi * real(j * (2 * k + 1), real64) / (2 * n))
          end if
        case (DTR_FFT_DST2)
          w(k + 1) = w(k + 1) + 2 * v(j + 1) * sin(pi * real((2 * j + 1) * (k + 1), real64) / (2 * n))
        case (DTR_FFT_DST3)
          if (j == n - 1) then
            w(k + 1) = w(k + 1) + (-1)**k * v(n)
          else
            w(k + 1) = w(k + 1) + 2 * v(j + 1) * sin(pi * real((j + 1) * (2 * k + 1), real64) / (2 * n))
          end if
        end select
      end do
    end do
  end function

  ! The forward transform of a whole array a(x, y, z), each axis by its kind.
  subroutine transform3(a, axes)
    complex(real64), intent(inout) :: a(:, :, :)
    integer(c_int), intent(in) :: axes(3)
    integer :: i, j, k
    do k = 1, size(a, 3)
      do j = 1, size(a, 2)
        a(:, j, k) = along(a(:, j, k), axes(1))
      end do
    end do
    do k = 1, size(a, 3)
      do i = 1, size(a, 1)
        a(i, :, k) = along(a(i, :, k), axes(2))
      end do
    end do
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        a(i, j, :) = along(a(i, j, :), axes(3))
      end do
    end do
  end subroutine

  ! The relative L2 error over every rank of case_comm of got against wanted (a NaN never passes).
  subroutine expect_close(got, wanted, tolerance, what)
    complex(real64), intent(in) :: got(:), wanted(:)
    real(real64), intent(in) :: tolerance
    character(len=*), intent(in) :: what
    real(real64) :: sums(2), error
    character(len=12) :: text
    sums = [sum(abs(got - wanted)**2), sum(abs(wanted)**2)]
    call MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE_PRECISION, MPI_SUM, case_comm)
    error = sqrt(sums(1))
    if (sums(2) > 0) error = sqrt(sums(1) / sums(2))
    write (text, '(es12.3)') error
    call expect(error <= tolerance, what // ' error' // text)
  end subroutine

  ! One plan of `kind` (C2C of complex(real64), R2C of real(real64)) with `axes` on `grid`, norm inverse:
  ! the forward of input_value against transform3 of the whole array, then the inverse back to the input.
  subroutine run_case(grid, shape, kind, axes, what)
    type(dtr_grid), intent(in) :: grid
    integer(int64), intent(in) :: shape(3)
    integer(c_int), intent(in) :: kind, axes(3)
    character(len=*), intent(in) :: what
    real(real64), allocatable, target :: xr(:), zr(:), backr(:)
    complex(real64), allocatable, target :: xc(:), zc(:), backc(:)
    complex(real64), allocatable :: whole(:, :, :), input(:), got(:), wanted(:)
    real(real64) :: poison
    type(dtr_fft_config) :: config
    type(dtr_fft_plan) :: plan
    type(dtr_box) :: ib, ob
    type(c_ptr) :: xp, zp, bp
    integer(c_size_t) :: xbytes, zbytes
    integer(int64) :: i, j, k, nin, nout, counts(2), wanted_counts(2)
    logical :: real_in, real_out
    character(len=:), allocatable :: name
    character(len=40) :: text
    integer(c_int) :: pr, pc

    if (dtr_grid_get_dims(grid, pr, pc) /= DTR_SUCCESS) pr = -1
    write (text, '(a, i0, a, i0, a, i0, a, i0, a, i0)') ' ', shape(1), ' x ', shape(2), ' x ', shape(3), ' on ', pr, &
      ' x ', pc
    name = what // trim(text)
    real_in = kind == DTR_FFT_R2C
    real_out = real_in .and. all(axes /= DTR_FFT_PERIODIC)
    call dtr_fft_config_init(config)
    config%transpose = test_config
    config%norm = DTR_FFT_NORM_INVERSE
    config%axes = axes
    if (real_in) then
      if (.not. expect_success(dtr_fft_plan_create(plan, grid, shape, kind, DTR_FLOAT64, config), name // ': plan')) return
    else
      if (.not. expect_success(dtr_fft_plan_create(plan, grid, shape, kind, DTR_COMPLEX128, config), name // ': plan')) return
    end if
    if (.not. (agreed_success(dtr_fft_get_box(plan, DTR_FFT_INPUT_SIDE, ib), name // ': input box') .and. &
               agreed_success(dtr_fft_get_box(plan, DTR_FFT_OUTPUT_SIDE, ob), name // ': output box'))) then
      call expect_result(dtr_fft_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
      return
    end if
    ! The views below take these orders for granted; the boxes tile the arrays (a real plan's output:
    ! the whole nx, real entries).
    call expect(all(ib%order == [0, 1, 2]) .and. all(ob%order == [2, 0, 1]), name // ': box orders')
    call expect(ob%entry_bytes == merge(8, 16, real_out), name // ': output entry bytes')
    nin = product(ib%size)
    nout = product(ob%size)
    counts = [nin, nout]
    call MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INTEGER8, MPI_SUM, case_comm)
    wanted_counts = product(shape)
    if (real_in .and. .not. real_out) wanted_counts(2) = (shape(1) / 2 + 1) * shape(2) * shape(3)
    call expect(all(counts == wanted_counts), name // ': the boxes do not tile the arrays')

    ! The input in x(nx, ny_local, nz_local) order, and the poisoned output.
    poison = ieee_value(0.0_real64, ieee_quiet_nan)
    allocate (input(nin))
    do k = 1, ib%size(3)
      do j = 1, ib%size(2)
        do i = 1, ib%size(1)
          input(i + ib%size(1) * (j - 1 + ib%size(2) * (k - 1))) = input_value(ib%start + [i, j, k] - 1, shape)
        end do
      end do
    end do
    if (real_in) input = input%re
    if (real_in) then
      allocate (xr(max(1_int64, nin)), backr(max(1_int64, nin)))
      xr(1:nin) = input%re
      backr = poison
      xp = c_loc(xr)
      bp = c_loc(backr)
      xbytes = storage_size(xr) / 8 * size(xr, kind=int64)
    else
      allocate (xc(max(1_int64, nin)), backc(max(1_int64, nin)))
      xc(1:nin) = input
      backc = cmplx(poison, poison, real64)
      xp = c_loc(xc)
      bp = c_loc(backc)
      xbytes = storage_size(xc) / 8 * size(xc, kind=int64)
    end if
    if (real_out) then
      allocate (zr(max(1_int64, nout)))
      zr = poison
      zp = c_loc(zr)
      zbytes = storage_size(zr) / 8 * size(zr, kind=int64)
    else
      allocate (zc(max(1_int64, nout)))
      zc = cmplx(poison, poison, real64)
      zp = c_loc(zc)
      zbytes = storage_size(zc) / 8 * size(zc, kind=int64)
    end if

    if (.not. everywhere(expect_success(run_fft_execute(plan, xp, zp, xbytes, zbytes, DTR_FFT_FORWARD), &
                                        name // ': forward'))) then
      call expect_result(dtr_fft_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
      return
    end if
    ! The whole transform, this rank's Z-pencil of it in z(nz, nx_local, ny_local) order.
    allocate (whole(shape(1), shape(2), shape(3)), wanted(nout), got(nout))
    do k = 1, shape(3)
      do j = 1, shape(2)
        do i = 1, shape(1)
          whole(i, j, k) = input_value([i, j, k] - 1, shape)
          if (real_in) whole(i, j, k) = whole(i, j, k)%re
        end do
      end do
    end do
    call transform3(whole, axes)
    do j = 1, ob%size(2)
      do i = 1, ob%size(1)
        do k = 1, ob%size(3)
          wanted(k + ob%size(3) * (i - 1 + ob%size(1) * (j - 1))) = &
            whole(ob%start(1) + i, ob%start(2) + j, ob%start(3) + k)
        end do
      end do
    end do
    if (real_out) then
      got = zr(1:nout)
    else
      got = zc(1:nout)
    end if
    call expect_close(got, wanted, 1e-12_real64, name // ': forward')
    if (real_in) then
      call expect(all(xr(1:nin) == input%re), name // ': the forward changed its input')
    else
      call expect(all(xc(1:nin) == input), name // ': the forward changed its input')
    end if

    if (everywhere(expect_success(run_fft_execute(plan, zp, bp, zbytes, xbytes, DTR_FFT_INVERSE), &
                                  name // ': inverse'))) then
      deallocate (got)
      if (real_in) then
        got = backr(1:nin)
      else
        got = backc(1:nin)
      end if
      call expect_close(got, input, 1e-12_real64, name // ': round trip')
    end if
    call expect_result(dtr_fft_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
    cases = cases + 1
  end subroutine

end module r2r_reference

program test_fortran_fft_r2r
  use, intrinsic :: iso_c_binding, only: c_associated, c_int
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use disttranspose
  use test_harness
  use r2r_reference
  implicit none

  ! Even and odd nx (R2C's half spectrum), nz below the slabs' pc on 3 and 4 ranks (empty boxes).
  integer(int64), parameter :: shapes(3, 2) = reshape([8, 6, 5, 7, 4, 2], [3, 2])
  type(dtr_grid) :: grid
  integer :: ranks, pr, s, n

  call start_test('test_fortran_fft_r2r')
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  n = 0
  do pr = 1, ranks
    if (mod(ranks, pr) /= 0) cycle
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD, pr, ranks / pr), 'grid create')) cycle
    do s = 1, size(shapes, 2)
      call run_case(grid, shapes(:, s), DTR_FFT_R2C, [DTR_FFT_PERIODIC, DTR_FFT_PERIODIC, DTR_FFT_DST2], &
                    'R2C, DST-II on z,')
      call run_case(grid, shapes(:, s), DTR_FFT_C2C, [DTR_FFT_PERIODIC, DTR_FFT_DCT2, DTR_FFT_DST3], &
                    'C2C, DCT-II on y, DST-III on z,')
      call run_case(grid, shapes(:, s), DTR_FFT_R2C, [DTR_FFT_DCT3, DTR_FFT_DCT2, DTR_FFT_DST3], &
                    'real plan, DCT-III, DCT-II, DST-III,')
      n = n + 3
    end do
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end do
  call check_refusals()
  call expect(cases == n, 'not every case ran')
  call end_test('test_fortran_fft_r2r', '')

contains

  ! Plans the library refuses on every rank, naming why.
  subroutine check_refusals()
    integer(int64), parameter :: shape(3) = [8, 6, 5]
    type(dtr_fft_config) :: config
    type(dtr_fft_plan) :: plan
    integer :: rank

    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD), 'grid for refusals')) return
    call dtr_fft_config_init(config)
    config%transpose = test_config
    config%axes = [DTR_FFT_PERIODIC, DTR_FFT_PERIODIC, DTR_FFT_DST2]
    config%norm = DTR_FFT_NORM_ORTHO
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, config), DTR_INVALID_ARGUMENT, &
                 'ortho with a DST', 'ortho')
    config%norm = DTR_FFT_NORM_INVERSE
    config%axes = [DTR_FFT_DCT2, DTR_FFT_DCT2, DTR_FFT_PERIODIC]
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_R2C, DTR_FLOAT64, config), DTR_INVALID_ARGUMENT, &
                 'R2C with a real-to-real x and a periodic z', 'real-to-real x')
    config%axes = [DTR_FFT_PERIODIC, DTR_FFT_DST3 + 1, DTR_FFT_PERIODIC]
    call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, config), DTR_INVALID_ARGUMENT, &
                 'a kind beyond DTR_FFT_DST3', 'config.axes[1]')
    if (ranks > 1) then
      config%axes = [DTR_FFT_PERIODIC, DTR_FFT_PERIODIC, merge(DTR_FFT_DST2, DTR_FFT_DCT2, rank == 0)]
      call refused(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, config), DTR_MISMATCH, &
                   'axes differing between ranks', 'axes[2]')
    end if
    call expect(.not. c_associated(plan%handle), 'a refused plan has a handle')
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end subroutine

  ! `wanted` on every rank, and a message with `word` in it.
  subroutine refused(got, wanted, what, word)
    integer(c_int), intent(in) :: got, wanted
    character(len=*), intent(in) :: what, word
    call expect_everywhere(got, wanted, what)
    call expect(index(dtr_get_last_error(), word) > 0, &
                what // ': the message does not name "' // word // '": ' // dtr_get_last_error())
  end subroutine

end program test_fortran_fft_r2r

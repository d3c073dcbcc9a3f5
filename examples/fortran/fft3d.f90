! A distributed 3-D FFT from Fortran: a complex(real64) array of nx x ny x nz on a pr x pc grid goes
! forward from X-pencils to Z-pencils and back. The arrays are the boxes of the plan's two sides:
!   input  x(nx, ny_local, nz_local)   (X-pencil: box%order = [0, 1, 2])
!   output z(nz, nx_local, ny_local)   (Z-pencil: box%order = [2, 0, 1])
! with box%start placing them in the whole array (from 0). The input is one plane wave, so its
! transform is nx ny nz at the wave's frequency and 0 elsewhere: the check of the forward is exact
! up to rounding, and it shows where each frequency lands. The plan scales the inverse by 1/N
! (DTR_FFT_NORM_INVERSE): the round trip gives the input back.
!
!   mpiexec -n 4 fft3d_f [nx ny nz [pr pc]] [gpu]
program fft3d
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_loc, c_ptr
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use cuda_runtime
  use support
  implicit none

  integer(c_int64_t) :: shape(3) = [64, 48, 40]
  integer(int64), parameter :: wave(3) = [1, 2, 3]
  integer(c_int) :: dims(2), backend, chunks, pr, pc
  type(dtr_grid) :: grid
  type(dtr_fft_config) :: config
  type(dtr_fft_plan) :: plan
  type(dtr_box) :: ib, ob
  complex(real64), allocatable, target :: x(:, :, :), z(:, :, :), back(:, :, :)
  type(c_ptr) :: dx, dz
  integer(int64) :: i, j, k, frequency(3)
  real(real64) :: n, errors(2), worst(2)
  integer :: rank
  logical :: gpu

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call grid_arguments(shape, dims, gpu, 'fft3d')
  if (.not. gpu) config%transpose%backend = DTR_BACKEND_CPU
  config%norm = DTR_FFT_NORM_INVERSE

  call check(dtr_grid_create(grid, MPI_COMM_WORLD, dims(1), dims(2)), 'fft3d')
  call check(dtr_grid_get_dims(grid, pr, pc), 'fft3d')
  call check(dtr_fft_plan_create(plan, grid, shape, DTR_FFT_C2C, DTR_COMPLEX128, config), 'fft3d')
  call check(dtr_grid_destroy(grid), 'fft3d')
  call check(dtr_fft_get_backend(plan, backend), 'fft3d')
  call check(dtr_fft_get_chunks(plan, chunks), 'fft3d')
  call check(dtr_fft_get_box(plan, DTR_FFT_INPUT_SIDE, ib), 'fft3d')
  call check(dtr_fft_get_box(plan, DTR_FFT_OUTPUT_SIDE, ob), 'fft3d')

  allocate (x(ib%size(1), ib%size(2), ib%size(3)), back(ib%size(1), ib%size(2), ib%size(3)))
  allocate (z(ob%size(3), ob%size(1), ob%size(2)))
  do k = 1, ib%size(3)
    do j = 1, ib%size(2)
      do i = 1, ib%size(1)
        x(i, j, k) = plane_wave(ib%start + [i, j, k] - 1)
      end do
    end do
  end do

  if (gpu) then
    call cuda(cudaMalloc(dx, ib%bytes), 'fft3d')
    call cuda(cudaMalloc(dz, ob%bytes), 'fft3d')
    call cuda(cudaMemcpy(dx, c_loc(x), ib%bytes, cudaMemcpyHostToDevice), 'fft3d')
    call check(dtr_fft_execute(plan, dx, dz, DTR_FFT_FORWARD), 'fft3d')
    call cuda(cudaMemcpy(c_loc(z), dz, ob%bytes, cudaMemcpyDeviceToHost), 'fft3d')
    call check(dtr_fft_execute(plan, dz, dx, DTR_FFT_INVERSE), 'fft3d')
    call cuda(cudaMemcpy(c_loc(back), dx, ib%bytes, cudaMemcpyDeviceToHost), 'fft3d')
    call cuda(cudaFree(dx), 'fft3d')
    call cuda(cudaFree(dz), 'fft3d')
  else
    call check(dtr_fft_execute(plan, c_loc(x), c_loc(z), DTR_FFT_FORWARD), 'fft3d')
    call check(dtr_fft_execute(plan, c_loc(z), c_loc(back), DTR_FFT_INVERSE), 'fft3d')
  end if
  call check(dtr_fft_plan_destroy(plan), 'fft3d')

  ! z(k, i, j) holds the frequency (ob%start(1) + i - 1, ob%start(2) + j - 1, ob%start(3) + k - 1).
  n = real(product(shape), real64)
  frequency = modulo(wave, shape)
  errors = 0
  do j = 1, ob%size(2)
    do i = 1, ob%size(1)
      do k = 1, ob%size(3)
        if (all(ob%start + [i, j, k] - 1 == frequency)) then
          errors(1) = max(errors(1), abs(z(k, i, j) - n) / n)
        else
          errors(1) = max(errors(1), abs(z(k, i, j)) / n)
        end if
      end do
    end do
  end do
  if (size(x) > 0) errors(2) = maxval(abs(back - x))
  call MPI_Allreduce(errors, worst, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  if (rank == 0) print '(a, 2(i0, a), i0, a, i0, a, i0, 3a, i0, a, es9.2, a, es9.2)', 'fft3d: ', shape(1), ' x ', &
    shape(2), ' x ', shape(3), ' complex(real64) on a ', pr, ' x ', pc, ' grid (', dtr_backend_name(backend), ', ', &
    chunks, ' chunks): forward error ', worst(1), ', round trip error ', worst(2)
  call MPI_Finalize()
  if (.not. all(worst <= 1e-12_real64)) error stop 1

contains

  ! exp(2 pi i (wave . r / shape)) at r = (x, y, z), counting from 0.
  complex(real64) function plane_wave(r)
    integer(int64), intent(in) :: r(3)
    real(real64), parameter :: two_pi = 2 * acos(-1.0_real64)
    real(real64) :: phase
    phase = two_pi * sum(real(modulo(wave * r, shape), real64) / real(shape, real64))
    plane_wave = cmplx(cos(phase), sin(phase), real64)
  end function

end program fft3d

! A Fortran program outside the project, built against an installed disttranspose (find_package's
! component Fortran, or pkg-config's disttranspose-fortran): a(37, 23) of real(real64), split along
! its last dimension, transposed on the cpu backend and checked entry by entry; and the FFT config's
! defaults from the library (the FFT itself needs a library built with FFTW, which a package need
! not be).
program consumer
  use, intrinsic :: iso_c_binding, only: c_int64_t, c_loc
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi_f08
  use disttranspose
  implicit none
  integer(c_int64_t), parameter :: n1 = 37, n2 = 23
  real(real64), allocatable, target :: a(:, :), b(:, :)
  type(dtr_local_size) :: mine
  type(dtr_config) :: config
  type(dtr_fft_config) :: fft_config
  type(dtr_plan) :: plan
  integer :: i, j, rank, wrong, total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (dtr_get_local_size(n2, n1, DTR_FLOAT64, 1_c_int64_t, MPI_COMM_WORLD, -1, mine) /= DTR_SUCCESS) call fail()
  allocate (a(n1, mine%in_rows), b(n2, mine%out_rows))
  do j = 1, int(mine%in_rows)
    do i = 1, int(n1)
      a(i, j) = i + 1000 * (mine%in_row_start + j)
    end do
  end do
  config%backend = DTR_BACKEND_CPU
  if (dtr_plan_create(plan, n2, n1, DTR_FLOAT64, 1_c_int64_t, MPI_COMM_WORLD, config) /= DTR_SUCCESS) call fail()
  if (dtr_execute(plan, c_loc(a), c_loc(b)) /= DTR_SUCCESS) call fail()
  if (dtr_plan_destroy(plan) /= DTR_SUCCESS) call fail()
  wrong = 0
  do i = 1, int(mine%out_rows)
    do j = 1, int(n2)
      if (abs(b(j, i) - (mine%out_row_start + i + 1000 * j)) > 0) wrong = wrong + 1
    end do
  end do
  call dtr_fft_config_init(fft_config)
  if (fft_config%chunks /= 0 .or. fft_config%norm /= DTR_FFT_NORM_NONE .or. &
      fft_config%transpose%backend /= DTR_BACKEND_AUTO) wrong = wrong + 1
  call MPI_Allreduce(wrong, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'fortran consumer: ', total, ' wrong'
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine fail()
    print '(2a)', 'fortran consumer: ', dtr_get_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine

end program consumer

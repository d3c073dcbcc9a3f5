! A pencil round trip from Fortran, as a 3-D FFT makes it: a complex(real64) array of nx x ny x nz
! on a pr x pc grid moves X -> Y -> Z -> Y -> X, and every rank checks its box after each move.
! A box is a Fortran array whose first dimension is the pencil's whole axis:
!   X pencil: x(nx, ny_local, nz_local)   Y pencil: y(ny, nz_local, nx_local)
!   Z pencil: z(nz, nx_local, ny_local)
! (box%order lists the axes in that order, box%start and box%size place the box in the whole).
!
!   mpiexec -n 4 pencils_f [nx ny nz [pr pc]] [gpu]
program pencils
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_loc, c_ptr
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use cuda_runtime
  use support
  implicit none

  integer(c_int64_t) :: shape(3) = [64, 48, 40]
  integer(c_int) :: dims(2), backend, pr, pc
  integer, parameter :: moves(2, 4) = reshape([DTR_PENCIL_X, DTR_PENCIL_Y, DTR_PENCIL_Y, DTR_PENCIL_Z, &
                                               DTR_PENCIL_Z, DTR_PENCIL_Y, DTR_PENCIL_Y, DTR_PENCIL_X], [2, 4])
  type(dtr_grid) :: grid
  type(dtr_box) :: box(0:2)
  type(dtr_plan) :: plan(4)
  type(dtr_config) :: config
  complex(real64), allocatable, target :: from(:), to(:)
  type(c_ptr) :: dfrom, dto
  integer :: rank, ranks, wrong, total, m, i
  logical :: gpu

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call grid_arguments(shape, dims, gpu, 'pencils')
  if (.not. gpu) config%backend = DTR_BACKEND_CPU

  call check(dtr_grid_create(grid, MPI_COMM_WORLD, dims(1), dims(2)), 'pencils')
  call check(dtr_grid_get_dims(grid, pr, pc), 'pencils')
  do i = 0, 2
    call check(dtr_pencil_box(grid, shape, i, DTR_COMPLEX128, 1_c_int64_t, box(i)), 'pencils')
  end do
  do m = 1, 4
    call check(dtr_plan_create_pencil(plan(m), grid, shape, moves(1, m), moves(2, m), DTR_COMPLEX128, 1_c_int64_t, &
                                      config), 'pencils')
  end do
  call check(dtr_plan_get_backend(plan(1), backend), 'pencils')

  ! The X pencils hold the whole array's values; each move must deliver them exactly.
  allocate (from(product(box(DTR_PENCIL_X)%size)))
  call fill(from, box(DTR_PENCIL_X))
  wrong = 0
  do m = 1, 4
    allocate (to(product(box(moves(2, m))%size)))
    to = (-1, -1)
    if (gpu) then
      call cuda(cudaMalloc(dfrom, box(moves(1, m))%bytes), 'pencils')
      call cuda(cudaMalloc(dto, box(moves(2, m))%bytes), 'pencils')
      call cuda(cudaMemcpy(dfrom, c_loc(from), box(moves(1, m))%bytes, cudaMemcpyHostToDevice), 'pencils')
      call check(dtr_execute(plan(m), dfrom, dto), 'pencils')
      call cuda(cudaMemcpy(c_loc(to), dto, box(moves(2, m))%bytes, cudaMemcpyDeviceToHost), 'pencils')
      call cuda(cudaFree(dfrom), 'pencils')
      call cuda(cudaFree(dto), 'pencils')
    else
      call check(dtr_execute(plan(m), c_loc(from), c_loc(to)), 'pencils')
    end if
    wrong = wrong + count_wrong(to, box(moves(2, m)))
    call move_alloc(to, from)
  end do
  do m = 1, 4
    call check(dtr_plan_destroy(plan(m)), 'pencils')
  end do
  call check(dtr_grid_destroy(grid), 'pencils')

  call MPI_Allreduce(wrong, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, 2(i0, a), i0, a, i0, a, i0, 3a, i0, a)', 'pencils: ', shape(1), ' x ', shape(2), ' x ', &
    shape(3), ' complex(real64) on a ', pr, ' x ', pc, ' grid (', dtr_backend_name(backend), &
    '), X -> Y -> Z -> Y -> X: ', total, ' wrong'
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  ! The value of the whole array at (x, y), z counting from 0: distinct for every element.
  complex(real64) function value_of(c)
    integer(int64), intent(in) :: c(3)
    value_of = cmplx(c(1) + shape(1) * (c(2) + shape(2) * c(3)), -c(3), real64)
  end function

  ! The whole array's coordinates of the n-th element (from 1) of a box in memory order.
  function coordinates(b, n) result(c)
    type(dtr_box), intent(in) :: b
    integer, intent(in) :: n
    integer(int64) :: c(3), rest
    integer :: d, axis
    rest = n - 1
    do d = 1, 3
      axis = b%order(d) + 1
      c(axis) = b%start(axis) + mod(rest, b%size(axis))
      rest = rest / b%size(axis)
    end do
  end function

  subroutine fill(values, b)
    complex(real64), intent(out) :: values(:)
    type(dtr_box), intent(in) :: b
    integer :: n
    do n = 1, size(values)
      values(n) = value_of(coordinates(b, n))
    end do
  end subroutine

  integer function count_wrong(values, b)
    complex(real64), intent(in) :: values(:)
    type(dtr_box), intent(in) :: b
    integer :: n
    count_wrong = 0
    do n = 1, size(values)
      if (values(n) /= value_of(coordinates(b, n))) count_wrong = count_wrong + 1
    end do
  end function

end program pencils

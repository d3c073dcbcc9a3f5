! A distributed 2-D transpose from Fortran: the global array a(n1, n2), split along its last
! dimension over the ranks, becomes b(n2, n1) with b(j, i) = a(i, j), split along its last dimension.
! In the library's words (row-major) a is a matrix of n2 rows and n1 columns: the plan takes
! rows = n2, cols = n1.
!
!   mpiexec -n 3 transpose2d_f [n1 n2] [gpu]
!
! Without `gpu`: host arrays and the cpu backend. With `gpu`: each rank takes a GPU by its node-local
! rank, the arrays are copied to device memory, and the library picks its GPU backend.
program transpose2d
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_loc, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use disttranspose
  use cuda_runtime
  use support
  implicit none

  integer(c_int64_t) :: n1 = 1000, n2 = 777, i, j
  real(real64), allocatable, target :: a(:, :), b(:, :)
  type(dtr_config) :: config
  type(dtr_local_size) :: mine
  type(dtr_plan) :: plan
  type(c_ptr) :: da, db
  integer(c_int) :: backend
  integer :: rank, ranks, wrong, total
  logical :: gpu
  integer(c_int64_t) :: sizes(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  sizes = [n1, n2]
  call example_arguments(sizes, gpu)
  n1 = sizes(1)
  n2 = sizes(2)

  ! What this rank owns: rows of the library's matrix are columns of a (a's last dimension).
  call check(dtr_get_local_size(n2, n1, DTR_FLOAT64, 1_c_int64_t, MPI_COMM_WORLD, -1, mine), 'transpose2d')
  allocate (a(n1, mine%in_rows), b(n2, mine%out_rows))
  do j = 1, mine%in_rows
    do i = 1, n1
      a(i, j) = value_of(i, mine%in_row_start + j)
    end do
  end do
  b = -1

  if (gpu) then
    call select_node_gpu('transpose2d')
  else
    config%backend = DTR_BACKEND_CPU
  end if
  call check(dtr_plan_create(plan, n2, n1, DTR_FLOAT64, 1_c_int64_t, MPI_COMM_WORLD, config), 'transpose2d')
  call check(dtr_plan_get_backend(plan, backend), 'transpose2d')

  if (gpu) then
    call cuda(cudaMalloc(da, mine%in_bytes), 'transpose2d')
    call cuda(cudaMalloc(db, mine%out_bytes), 'transpose2d')
    call cuda(cudaMemcpy(da, c_loc(a), mine%in_bytes, cudaMemcpyHostToDevice), 'transpose2d')
    call check(dtr_execute(plan, da, db), 'transpose2d')
    call cuda(cudaMemcpy(c_loc(b), db, mine%out_bytes, cudaMemcpyDeviceToHost), 'transpose2d')
    call cuda(cudaFree(da), 'transpose2d')
    call cuda(cudaFree(db), 'transpose2d')
  else
    call check(dtr_execute(plan, c_loc(a), c_loc(b)), 'transpose2d')
  end if
  call check(dtr_plan_destroy(plan), 'transpose2d')

  ! b(j, i) = a(i, j), where b's column i is this rank's column out_row_start + i of the whole.
  wrong = 0
  do i = 1, mine%out_rows
    do j = 1, n2
      if (b(j, i) /= value_of(mine%out_row_start + i, j)) wrong = wrong + 1
    end do
  end do
  call MPI_Allreduce(wrong, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a, i0, a, i0, 3a, i0, a)', 'transpose2d: a(', n1, ', ', n2, ') real64 on ', ranks, &
    ' ranks (', dtr_backend_name(backend), '): ', total, ' wrong'
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  ! a(i, j) of the whole array: distinct for every element, exact in real64.
  real(real64) function value_of(i, j)
    integer(int64), intent(in) :: i, j
    value_of = real(i + n1 * (j - 1), real64) + 0.5_real64
  end function

end program transpose2d

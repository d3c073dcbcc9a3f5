! The Fortran binding's halo exchanges (dtr_halo_*) under mpiexec, on every grid the rank count
! factors into and every pencil, against the value each halo cell stands for, computed from the
! global index alone:
!   - shapes that do not divide (1 x 1 x 1, primes, boxes thinner than the halo, empty boxes where an
!     axis has fewer planes than ranks); widths 0-3 per axis, each axis periodic or not (a sampled set
!     of combinations per case); every element type, howmany 1 and 3;
!   - the interior filled from a hash of the global index, the halos poisoned: after an execute every
!     halo cell holds its global cell's bytes, bit for bit, or (beyond a domain edge that is not
!     periodic) the poison still; the interior unchanged; a second execute the same;
!   - real(real64) arrays declared with the global indices as bounds, as docs/fortran.md shows, and the
!     integer form of `periodic` beside the logical one;
!   - the adjoint (dtr_halo_execute_adjoint) on real(real64) arrays with global bounds, small integers
!     (exact sums), widths wider than some boxes: <execute(x), y> = <x, adjoint(y)> over the ranks, the
!     written halo zeroed, the untouched cells as they were, the interiors' total the written cells';
!   - the padded box against the pencil's box; bad input (widths, pencil, config, a null buffer,
!     arguments that differ between ranks, one rank's bad argument): the same error on every rank.
!
!   test_fortran_halo host                 host arrays, the cpu backend
!   test_fortran_halo device [BACKEND]     device buffers (auto, nccl or p2p), the node-local rank's GPU
program test_fortran_halo
  use, intrinsic :: iso_c_binding, only: c_associated, c_int, c_loc, c_null_ptr, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: int8, int64, real64
  use mpi_f08
  use disttranspose
  use test_harness
  implicit none

  ! Odd sizes; 1 x 1 x 1 and nz = 2 leave boxes empty on 3 and 4 ranks; ny = 2 is thinner than most halos.
  integer(int64), parameter :: shapes(3, 5) = reshape([7, 5, 3, 1, 1, 1, 9, 2, 4, 6, 4, 5, 3, 7, 2], [3, 5])
  integer(c_int), parameter :: widths(3, 6) = reshape([1, 1, 1, 2, 0, 3, 0, 3, 1, 3, 2, 0, 0, 0, 0, 1, 3, 2], [3, 6])
  integer(c_int), parameter :: types(7) = [DTR_INT8, DTR_FLOAT16, DTR_BFLOAT16, DTR_FLOAT32, DTR_FLOAT64, &
                                           DTR_COMPLEX64, DTR_COMPLEX128]
  integer(int8), parameter :: poison = -1  ! no entry of the pattern (cell_byte) is 0xff
  type(dtr_grid) :: grid
  integer :: ranks, pr, s, n, k
  integer(c_int) :: pencil
  ! Halo cells left untouched beyond an edge that is not periodic, and cases with an empty box, over
  ! all cases (each rank's).
  integer(int64) :: untouched = 0
  integer :: empty_cases = 0
  character(len=80) :: what

  call start_test('test_fortran_halo')
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  n = 0
  do pr = 1, ranks
    if (mod(ranks, pr) /= 0) cycle
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD, pr, ranks / pr), 'grid create')) cycle
    do pencil = DTR_PENCIL_X, DTR_PENCIL_Z
      do s = 1, size(shapes, 2)
        ! Two cases per shape, the widths, periodic axes, types and howmany taken in turn so that every
        ! combination comes up over the grids.
        do k = 1, 2
          call halo_case(grid, shapes(:, s), pencil, types(mod(n, 7) + 1), merge(3_int64, 1_int64, mod(n, 4) == 1), &
                         widths(:, mod(n + pr, 6) + 1), [mod(n, 2) == 0, mod(n / 2, 2) == 0, mod(n / 4 + pr, 2) == 0])
          n = n + 1
        end do
      end do
      call view_case(grid, pencil)
      call adjoint_case(grid, pencil, [6_int64, 5_int64, 7_int64], [1, 2, 1], [.true., .true., .true.])
      call adjoint_case(grid, pencil, [3_int64, 2_int64, 5_int64], [3, 2, 2], [.false., .true., .true.])
      n = n + 3
    end do
    call expect_result(dtr_grid_destroy(grid), DTR_SUCCESS, 'grid destroy')
  end do
  call check_bad_input()

  call expect(cases == n, 'not every case ran')
  call MPI_Allreduce(MPI_IN_PLACE, untouched, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call expect(untouched > 0, 'no halo cell lay beyond an edge that is not periodic')
  if (ranks >= 3) call expect(empty_cases > 0, 'no case had an empty box')
  write (what, '(a, i0, a, i0, a)') ' (', empty_cases, ' with an empty box, ', untouched, &
    ' halo cells beyond edges that are not periodic)'
  call end_test('test_fortran_halo', trim(what))

contains

  ! Byte k (from 0) of the entry of global cell c = (x, y, z), from 0, of an n(1) x n(2) x n(3) array:
  ! a hash of the global index (a Lehmer generator's steps), 0 to 126, the same on every rank.
  integer(int8) function cell_byte(c, n, k)
    integer(int64), intent(in) :: c(3), n(3), k
    integer(int64), parameter :: m = 2147483647_int64
    integer(int64) :: h
    h = modulo(c(1) + n(1) * (c(2) + n(2) * c(3)), m)
    h = modulo(modulo(h * 48271_int64 + 11, m) * 48271_int64 + k * 16807_int64, m)
    h = modulo(h * 48271_int64, m)
    cell_byte = int(modulo(h, 127_int64), int8)
  end function

  ! The global cell a padded cell stands for: c wrapped along the periodic axes; false beyond an edge
  ! that is not periodic (the cell stays untouched).
  logical function stands_for(c, shape, periodic, g)
    integer(int64), intent(in) :: c(3), shape(3)
    logical, intent(in) :: periodic(3)
    integer(int64), intent(out) :: g(3)
    integer :: a
    stands_for = .true.
    do a = 1, 3
      g(a) = c(a)
      if (c(a) >= 0 .and. c(a) < shape(a)) cycle
      if (periodic(a)) then
        g(a) = modulo(c(a), shape(a))
      else
        stands_for = .false.
      end if
    end do
  end function

  function case_name(grid, shape, pencil, type, howmany, halo, periodic) result(name)
    type(dtr_grid), intent(in) :: grid
    integer(int64), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: pencil, type, halo(3)
    logical, intent(in) :: periodic(3)
    character(len=:), allocatable :: name
    character(len=160) :: text
    integer(c_int) :: gr, gc
    if (dtr_grid_get_dims(grid, gr, gc) /= DTR_SUCCESS) gr = -1
    write (text, '(i0, a, i0, a, i0, 3a, i0, a, i0, a, i0, 3a, 3i2, a, 3l2)') shape(1), ' x ', shape(2), ' x ', &
      shape(3), ' ', dtr_data_type_name(type), ' x ', howmany, ' on ', gr, ' x ', gc, ', ', &
      dtr_pencil_name(pencil), '-pencils, halo', halo, ', periodic', periodic
    name = trim(text)
  end function

  ! One execute (or its adjoint) in place on a host buffer, or on a device copy of it (copied back).
  integer(c_int) function run_halo_execute(plan, buf, bytes, adjoint) result(res)
    type(dtr_halo_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: buf
    integer(c_size_t), intent(in) :: bytes
    logical, intent(in), optional :: adjoint
    type(c_ptr) :: dbuf, same
    logical :: back
    back = .false.
    if (present(adjoint)) back = adjoint
    dbuf = buf
    if (on_device) call to_device(buf, buf, bytes, bytes, dbuf, same)
    if (back) then
      res = dtr_halo_execute_adjoint(plan, dbuf)
    else
      res = dtr_halo_execute(plan, dbuf)
    end if
    if (on_device) call from_device(buf, buf, bytes, bytes, dbuf, same)
  end function

  ! A padded array of bytes, in the padded box's memory order: the interior from cell_byte, the halos
  ! poisoned (fill) or as an execute must leave them (want).
  subroutine padded_bytes(p, box, shape, periodic, buf, want, beyond)
    type(dtr_box), intent(in) :: p, box
    integer(int64), intent(in) :: shape(3)
    logical, intent(in) :: periodic(3)
    integer(int8), intent(out) :: buf(:), want(:)
    integer(int64), intent(out) :: beyond
    integer(int64) :: e, u, i1, i2, i3, k, c(3), g(3), idx(3)
    integer :: d, a
    logical :: inside
    e = int(p%entry_bytes, int64)
    beyond = 0
    u = 0
    do i3 = 0, p%size(p%order(3) + 1) - 1
      do i2 = 0, p%size(p%order(2) + 1) - 1
        do i1 = 0, p%size(p%order(1) + 1) - 1
          idx = [i1, i2, i3]
          inside = .true.
          do d = 1, 3
            a = p%order(d) + 1
            c(a) = p%start(a) + idx(d)
            inside = inside .and. c(a) >= box%start(a) .and. c(a) < box%start(a) + box%size(a)
          end do
          if (stands_for(c, shape, periodic, g)) then
            do k = 0, e - 1
              want(u + k + 1) = cell_byte(g, shape, k)
            end do
          else
            want(u + 1:u + e) = poison
            beyond = beyond + 1
          end if
          buf(u + 1:u + e) = poison
          if (inside) buf(u + 1:u + e) = want(u + 1:u + e)
          u = u + e
        end do
      end do
    end do
  end subroutine

  ! The first byte where got and want differ, as the padded cell's global (x, y, z) and byte.
  function first_difference(p, got, want) result(said)
    type(dtr_box), intent(in) :: p
    integer(int8), intent(in) :: got(:), want(:)
    character(len=:), allocatable :: said
    character(len=120) :: text
    integer(int64) :: u, cell, c(3), e
    integer :: d, a
    e = int(p%entry_bytes, int64)
    do u = 1, size(want, kind=int64)
      if (got(u) /= want(u)) exit
    end do
    cell = (u - 1) / e
    do d = 1, 3
      a = p%order(d) + 1
      c(a) = p%start(a) + mod(cell, p%size(a))
      cell = cell / p%size(a)
    end do
    write (text, '(a, 3(i0, a), i0, a, i0, a, i0)') 'first at cell (', c(1), ', ', c(2), ', ', c(3), ') byte ', &
      mod(u - 1, e), ': ', got(u), ', wanted ', want(u)
    said = trim(text)
  end function

  subroutine halo_case(grid, shape, pencil, type, howmany, wide, periodic)
    type(dtr_grid), intent(in) :: grid
    integer(int64), intent(in) :: shape(3), howmany
    integer(c_int), intent(in) :: pencil, type, wide(3)
    logical, intent(in) :: periodic(3)
    type(dtr_halo_plan) :: plan
    type(dtr_box) :: p, box
    integer(int8), allocatable, target :: buf(:), want(:)
    integer(int64) :: beyond, bytes
    integer(c_int) :: halo(3), backend, device
    integer :: round
    logical :: same
    character(len=:), allocatable :: name

    ! A periodic halo takes at most the whole axis; one that is not periodic may be wider (1 x 1 x 1, width 3).
    halo = wide
    where (periodic) halo = int(min(int(wide, int64), shape), c_int)
    name = case_name(grid, shape, pencil, type, howmany, halo, periodic)
    cases = cases + 1
    if (.not. expect_success(dtr_halo_plan_create(plan, grid, shape, pencil, type, howmany, halo, periodic, test_config), &
                             name // ': plan')) return
    call expect_result(dtr_halo_get_backend(plan, backend), DTR_SUCCESS, name // ': get backend')
    call expect(on_device .neqv. backend == DTR_BACKEND_CPU, name // ': backend ' // dtr_backend_name(backend))
    call expect_result(dtr_halo_get_device(plan, device), DTR_SUCCESS, name // ': get device')
    call expect(on_device .eqv. device >= 0, name // ': device')
    if (.not. (agreed_success(dtr_halo_get_box(plan, p), name // ': padded box') .and. &
               agreed_success(dtr_pencil_box(grid, shape, pencil, type, howmany, box), name // ': box'))) then
      call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
      return
    end if
    call expect(all(p%start == box%start - halo) .and. all(p%size == box%size + 2 * halo) .and. &
                all(p%order == box%order) .and. p%entry_bytes == box%entry_bytes .and. &
                p%entry_bytes == dtr_data_type_size(type) * howmany .and. &
                p%bytes == product(p%size) * p%entry_bytes, name // ': the padded box is not the box plus the halo')
    if (.not. everywhere(product(box%size) > 0)) empty_cases = empty_cases + 1

    bytes = product(p%size) * int(p%entry_bytes, int64)
    ! At least one byte, as c_loc asks of an array; the bytes past the padded box's (none of its) alike.
    allocate (buf(max(1_int64, bytes)), want(max(1_int64, bytes)))
    buf = poison
    want = poison
    call padded_bytes(p, box, shape, periodic, buf, want, beyond)
    untouched = untouched + beyond
    ! The second execute runs on the first one's result: the same again. (A failed execute is agreed by
    ! the library; a wrong result here, so that no rank leaves while the others execute again.)
    do round = 1, 2
      if (.not. expect_success(run_halo_execute(plan, c_loc(buf), int(size(buf), c_size_t)), name // ': execute')) exit
      same = all(buf == want)
      if (.not. same) call expect(.false., name // ': execute ' // merge('1', '2', round == 1) // ' differs, ' // &
                                  first_difference(p, buf, want))
      if (.not. everywhere(same)) exit
    end do
    call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
    call expect(.not. c_associated(plan%handle), name // ': a destroyed plan keeps its handle')
  end subroutine

  ! A real(real64) plan for the Fortran view of docs/fortran.md (the integer form of `periodic`): the
  ! bounds of its padded array, the padded box's global indices (from 0) in the pencil's order, lo to hi,
  ! the box itself first to last, and the order o (o(d): the axis of dimension d, from 1). False, the
  ! plan destroyed, where the plan or its box failed (on every rank).
  logical function view_plan(grid, shape, pencil, halo, periodic, name, plan, lo, hi, first, last, o) result(ok)
    type(dtr_grid), intent(in) :: grid
    integer(int64), intent(in) :: shape(3)
    integer(c_int), intent(in) :: pencil, halo(3), periodic(3)
    character(len=*), intent(in) :: name
    type(dtr_halo_plan), intent(out) :: plan
    integer(int64), intent(out) :: lo(3), hi(3), first(3), last(3)
    integer, intent(out) :: o(3)
    type(dtr_box) :: p
    integer :: d
    cases = cases + 1
    ok = expect_success(dtr_halo_plan_create(plan, grid, shape, pencil, DTR_FLOAT64, 1_int64, halo, periodic, &
                                             test_config), name // ': plan')
    if (.not. ok) return
    ok = agreed_success(dtr_halo_get_box(plan, p), name // ': padded box')
    if (.not. ok) then
      call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
      return
    end if
    o = p%order + 1
    do d = 1, 3
      lo(d) = p%start(o(d))
      hi(d) = p%start(o(d)) + p%size(o(d)) - 1
      first(d) = lo(d) + halo(o(d))
      last(d) = hi(d) - halo(o(d))
    end do
  end function

  ! The view: u(x, y, z) on X-pencils, u(y, z, x) on Y, u(z, x, y) on Z, every axis periodic, widths
  ! 1, 2, 1: afterwards u at any padded index holds the value of the cell it wraps to.
  subroutine view_case(grid, pencil)
    type(dtr_grid), intent(in) :: grid
    integer(c_int), intent(in) :: pencil
    integer(int64), parameter :: shape(3) = [6, 5, 7]
    integer(c_int), parameter :: halo(3) = [1, 2, 1]
    real(real64), allocatable, target :: u(:, :, :), want(:, :, :)
    type(dtr_halo_plan) :: plan
    integer(int64) :: lo(3), hi(3), first(3), last(3), i, j, k, c(3), g(3)
    integer :: o(3)
    character(len=:), allocatable :: name

    name = case_name(grid, shape, pencil, DTR_FLOAT64, 1_int64, halo, [.true., .true., .true.]) // ', global bounds'
    if (.not. view_plan(grid, shape, pencil, halo, [1, 1, 1], name, plan, lo, hi, first, last, o)) return
    allocate (u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), want(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          c(o) = [i, j, k]
          g = modulo(c, shape)
          want(i, j, k) = real(g(1) + 100 * g(2) + 10000 * g(3), real64) + 0.25_real64
          ! The interior from the formula, the halo's cells poisoned.
          u(i, j, k) = -1
          if (all([i, j, k] >= first .and. [i, j, k] <= last)) u(i, j, k) = want(i, j, k)
        end do
      end do
    end do
    if (expect_success(run_halo_execute(plan, c_loc(u), int(max(1_int64, size(u, kind=int64)) * 8, c_size_t)), &
                       name // ': execute')) &
      call expect(all(u == want), name // ': a halo cell does not hold the value of the cell it wraps to')
    call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
  end subroutine

  ! The adjoint on the view of view_case: x and y small integers from the global padded index and the
  ! rank (a halo cell of one rank differs from the cell it stands for and from another rank's), so that
  ! every sum is exact.
  subroutine adjoint_case(grid, pencil, shape, halo, periodic)
    type(dtr_grid), intent(in) :: grid
    integer(c_int), intent(in) :: pencil, halo(3)
    integer(int64), intent(in) :: shape(3)
    logical, intent(in) :: periodic(3)
    real(real64), allocatable, target :: x(:, :, :), y(:, :, :), hx(:, :, :), aty(:, :, :)
    type(dtr_halo_plan) :: plan
    integer(int64) :: lo(3), hi(3), first(3), last(3), i, j, k, c(3)
    integer(c_size_t) :: bytes
    integer :: o(3), rank
    real(real64) :: sums(4)  ! <H x, y>, <x, H^T y>, the written cells of y, the interiors of H^T y
    logical :: written, interior, halo_right
    character(len=:), allocatable :: name

    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    name = case_name(grid, shape, pencil, DTR_FLOAT64, 1_int64, halo, periodic) // ', adjoint'
    if (.not. view_plan(grid, shape, pencil, halo, merge(1_c_int, 0_c_int, periodic), name, plan, lo, hi, first, last, &
                        o)) return
    allocate (x(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), y(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          x(i, j, k) = real(modulo(7 * i + 13 * j + 29 * k + 3 * rank, 5_int64) - 2, real64)
          y(i, j, k) = real(modulo(11 * i + 5 * j + 17 * k + 7 * rank, 5_int64) - 2, real64)
        end do
      end do
    end do
    hx = x
    aty = y
    bytes = int(max(1_int64, size(x, kind=int64)) * 8, c_size_t)
    if (expect_success(run_halo_execute(plan, c_loc(hx), bytes), name // ': execute') .and. &
        expect_success(run_halo_execute(plan, c_loc(aty), bytes, adjoint=.true.), name // ': adjoint')) then
      sums = [sum(hx * y), sum(x * aty), 0.0_real64, 0.0_real64]
      halo_right = .true.
      do k = lo(3), hi(3)
        do j = lo(2), hi(2)
          do i = lo(1), hi(1)
            c(o) = [i, j, k]
            written = all(periodic .or. (c >= 0 .and. c < shape))
            interior = all([i, j, k] >= first .and. [i, j, k] <= last)
            if (written) sums(3) = sums(3) + y(i, j, k)
            if (interior) sums(4) = sums(4) + aty(i, j, k)
            ! The written halo zeroed; the untouched cells as they were.
            if (.not. interior) halo_right = halo_right .and. aty(i, j, k) == merge(0.0_real64, y(i, j, k), written)
          end do
        end do
      end do
      call MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
      call expect(sums(1) == sums(2), name // ': <execute(x), y> differs from <x, adjoint(y)>')
      call expect(sums(3) == sums(4), name // ': the interiors do not hold the written cells'' total')
      call expect(halo_right, name // ': a halo cell is neither zero (written) nor as it was (untouched)')
    end if
    call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, name // ': destroy')
  end subroutine

  ! Every rank gets the same error, whichever rank's argument was bad, and a refused execute writes nothing.
  subroutine check_bad_input()
    integer(int64), parameter :: shape(3) = [8, 6, 5]
    type(dtr_halo_plan) :: plan
    type(dtr_config) :: bad
    type(dtr_box) :: p
    integer(int8), allocatable, target :: buf(:)
    integer(c_int) :: halo(3)
    logical :: periodic(3)
    integer :: rank

    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (.not. expect_success(dtr_grid_create(grid, MPI_COMM_WORLD), 'grid for bad input')) return
    call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_X, DTR_FLOAT32, 1_int64, [1, -1, 1], &
                                      [.true., .true., .true.], test_config), DTR_INVALID_ARGUMENT, 'halo -1', 'widths')
    call expect(.not. c_associated(plan%handle), 'a refused halo plan has a handle')
    call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_Y, DTR_FLOAT32, 1_int64, [1, 1, 6], &
                                      [.false., .false., .true.], test_config), DTR_INVALID_ARGUMENT, &
                 'a periodic halo wider than its axis', 'wider than the periodic axis')
    call refused(dtr_halo_plan_create(plan, grid, shape, 3_c_int, DTR_FLOAT32, 1_int64, [1, 1, 1], &
                                      [.true., .true., .true.], test_config), DTR_INVALID_ARGUMENT, 'pencil 3', 'pencil')
    call refused(dtr_halo_plan_create(plan, grid, [8_int64, 0_int64, 5_int64], DTR_PENCIL_X, DTR_FLOAT32, 1_int64, &
                                      [1, 1, 1], [.true., .true., .true.], test_config), DTR_INVALID_ARGUMENT, 'ny = 0', 'shape')
    bad = test_config
    bad%inplace = 1
    call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_X, DTR_FLOAT32, 1_int64, [1, 1, 1], &
                                      [.true., .true., .true.], bad), DTR_INVALID_ARGUMENT, 'config%inplace', 'inplace')
    halo = [1, 1, 1]
    if (rank == ranks - 1) halo(3) = -2
    call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_Z, DTR_COMPLEX64, 1_int64, halo, &
                                      [.true., .true., .true.], test_config), DTR_INVALID_ARGUMENT, &
                 'halo(3) = -2 on the last rank', 'widths')
    if (ranks > 1) then
      halo = [1, merge(1, 2, rank == 0), 1]
      call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_X, DTR_FLOAT64, 1_int64, halo, &
                                        [.true., .true., .true.], test_config), DTR_MISMATCH, &
                   'widths differing between ranks', 'halo[1]')
      periodic = [.true., .true., rank == 0]
      call refused(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_X, DTR_FLOAT64, 1_int64, [1, 1, 1], periodic, &
                                        test_config), DTR_MISMATCH, 'periodic differing between ranks', 'periodic')
    end if

    if (expect_success(dtr_halo_plan_create(plan, grid, shape, DTR_PENCIL_X, DTR_INT8, 1_int64, [1, 1, 1], &
                                            [.true., .true., .true.], test_config), 'plan for bad executes') .and. &
        agreed_success(dtr_halo_get_box(plan, p), 'padded box for bad executes')) then
      ! Every padded box holds cells here (the widths are 1), so that a null buffer is wrong on every rank.
      call refused(dtr_halo_execute(plan, c_null_ptr), DTR_INVALID_ARGUMENT, 'a null buffer', 'buf')
      call refused(dtr_halo_execute_adjoint(plan, c_null_ptr), DTR_INVALID_ARGUMENT, 'a null buffer (adjoint)', 'buf')
      allocate (buf(max(1_int64, product(p%size))))
      buf = 7
      if (ranks > 1) then
        if (rank == 0) then
          call refused(dtr_halo_execute(plan, c_null_ptr), DTR_INVALID_ARGUMENT, 'a null buffer on rank 0', 'buf')
        else
          call refused(run_halo_execute(plan, c_loc(buf), int(size(buf), c_size_t)), DTR_INVALID_ARGUMENT, &
                       'a null buffer on rank 0', 'rank 0')
        end if
        call expect(all(buf == 7), 'a refused halo execute wrote into the buffer')
      end if
      call expect_result(dtr_halo_plan_destroy(plan), DTR_SUCCESS, 'halo plan destroy')
    end if
    call expect_result(dtr_halo_plan_destroy(plan), DTR_INVALID_ARGUMENT, 'destroy of a null halo plan')
    call expect_result(dtr_halo_execute(plan, c_null_ptr), DTR_INVALID_ARGUMENT, 'execute of a null halo plan')
    call expect_result(dtr_halo_execute_adjoint(plan, c_null_ptr), DTR_INVALID_ARGUMENT, 'adjoint of a null halo plan')
    call expect_result(dtr_halo_get_box(plan, p), DTR_INVALID_ARGUMENT, 'padded box of a null halo plan')
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

end program test_fortran_halo

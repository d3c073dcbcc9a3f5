! The Fortran binding's grid tuner (dtr_grid_autotune) under mpiexec: each target (the FFT C2C and R2C,
! the pencil transposes, the halo exchange) on the world, with either kind of communicator handle;
! every rank gets the same grid, a factorisation of its size, the fastest of its report, which lists
! every grid; a report shorter than the candidates; the config's defaults against
! dtrAutotuneConfigInit; bad input refused on every rank.
!
!   test_fortran_autotune host                 the cpu backend
!   test_fortran_autotune device [BACKEND]     the GPU backends (auto: p2p and nccl tried), the node-local rank's GPU
program test_fortran_autotune
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t
  use mpi_f08
  use disttranspose
  use test_harness
  implicit none
  integer :: ranks, rank
  type(dtr_autotune_config) :: declared, initialized, cfg

  call start_test('test_fortran_autotune')
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)

  call dtr_autotune_config_init(initialized)
  call expect(initialized%fft_kind == declared%fft_kind .and. initialized%howmany == declared%howmany .and. &
              initialized%halo_pencil == declared%halo_pencil .and. all(initialized%halo == declared%halo) .and. &
              all(initialized%periodic == declared%periodic) .and. initialized%iterations == declared%iterations .and. &
              initialized%capacity == declared%capacity .and. initialized%transpose%backend == declared%transpose%backend .and. &
              initialized%transpose%device == declared%transpose%device, &
              'dtr_autotune_config''s initial values are dtrAutotuneConfigInit''s')

  cfg%transpose = test_config
  cfg%iterations = 2
  call tune('fft c2c c64', [16_c_int64_t, 12_c_int64_t, 10_c_int64_t], DTR_COMPLEX64, DTR_AUTOTUNE_FFT, cfg, .true.)
  cfg%fft_kind = DTR_FFT_R2C
  call tune('fft r2c fp64', [9_c_int64_t, 7_c_int64_t, 5_c_int64_t], DTR_FLOAT64, DTR_AUTOTUNE_FFT, cfg, .false.)
  cfg%fft_kind = DTR_FFT_C2C
  cfg%howmany = 2
  call tune('transposes fp32', [9_c_int64_t, 7_c_int64_t, 5_c_int64_t], DTR_FLOAT32, DTR_AUTOTUNE_TRANSPOSES, cfg, .true.)
  cfg%howmany = 1
  cfg%halo_pencil = DTR_PENCIL_Y
  cfg%halo = [1, 2, 0]
  cfg%periodic = [1, 0, 1]
  call tune('halo', [10_c_int64_t, 8_c_int64_t, 6_c_int64_t], DTR_FLOAT64, DTR_AUTOTUNE_HALO, cfg, .false.)
  call short_report()
  call bad_input()
  call end_test('test_fortran_autotune', '')

contains

  integer function backends()
    backends = 1
    if (test_config%backend == DTR_BACKEND_AUTO) backends = 2
  end function

  ! One tuning on the world (f08 handle, or the integer one), checked.
  subroutine tune(name, shape, type, what, config, f08)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: shape(3)
    integer(c_int), intent(in) :: type, what
    type(dtr_autotune_config), intent(in) :: config
    logical, intent(in) :: f08
    type(dtr_autotune_timing) :: report(64)
    integer(c_int) :: pr, pc, backend, count, res, r, b, at, best, limits(6), low(6)
    type(dtr_grid) :: grid
    cases = cases + 1
    if (f08) then
      res = dtr_grid_autotune(MPI_COMM_WORLD, shape, type, what, pr, pc, config, backend, report, count)
    else
      res = dtr_grid_autotune(MPI_COMM_WORLD%MPI_VAL, shape, type, what, pr, pc, config, backend, report, count)
    end if
    if (.not. agreed_success(res, name)) return
    ! The same choice and report on every rank.
    limits = [pr, pc, backend, count, 0, 0]
    call MPI_Allreduce(limits, low, 6, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
    call expect(all(low == limits), name // ': the ranks chose differently')
    call expect(pr * pc == ranks .and. pr >= 1, name // ': no grid of the world')
    call expect(count == backends() * count_divisors(ranks), name // ': not every candidate reported')
    at = 0
    best = 0
    do r = 1, ranks
      if (mod(ranks, r) /= 0) cycle
      do b = 1, backends()
        at = at + 1
        call expect(report(at)%pr == r .and. report(at)%pc == ranks / r, name // ': candidates out of order')
        if (report(at)%result == DTR_SUCCESS) then
          call expect(report(at)%seconds > 0, name // ': a candidate without a time')
          if (best == 0) then
            best = at
          else if (report(at)%seconds < report(best)%seconds) then
            best = at
          end if
        end if
      end do
    end do
    call expect(best > 0, name // ': no candidate ran')
    if (best > 0) call expect(report(best)%pr == pr .and. report(best)%pc == pc .and. report(best)%backend == backend, &
                              name // ': the choice is not the fastest reported')
    if (agreed_success(dtr_grid_create(grid, MPI_COMM_WORLD, pr, pc), name // ': grid')) then
      res = dtr_grid_destroy(grid)
    end if
  end subroutine

  integer function count_divisors(n)
    integer, intent(in) :: n
    integer :: d
    count_divisors = 0
    do d = 1, n
      if (mod(n, d) == 0) count_divisors = count_divisors + 1
    end do
  end function

  ! A report of one entry: the count says how many there were; nothing past it is written.
  subroutine short_report()
    type(dtr_autotune_timing) :: report(2)
    integer(c_int) :: pr, pc, count, res
    cases = cases + 1
    report(2)%pr = -7
    res = dtr_grid_autotune(MPI_COMM_WORLD, [8_c_int64_t, 6_c_int64_t, 4_c_int64_t], DTR_COMPLEX128, DTR_AUTOTUNE_FFT, &
                            pr, pc, cfg, timings=report(1:1), count=count)
    if (.not. agreed_success(res, 'short report')) return
    call expect(count == backends() * count_divisors(ranks), 'short report: count')
    call expect(report(1)%pr == 1 .and. report(2)%pr == -7, 'short report: entries')
    ! No config, no report, no backend asked back.
    if (test_config%backend == DTR_BACKEND_CPU) then
      res = dtr_grid_autotune(MPI_COMM_WORLD, [8_c_int64_t, 6_c_int64_t, 4_c_int64_t], DTR_COMPLEX64, DTR_AUTOTUNE_FFT, pr, pc)
      ! Without GPUs the defaults (auto) land on the cpu backend; with them, on p2p or nccl.
      call expect(everywhere(res == DTR_SUCCESS .and. pr * pc == ranks), 'defaults: ' // dtr_get_last_error())
    end if
  end subroutine

  subroutine bad_input()
    type(dtr_autotune_config) :: bad
    integer(c_int) :: pr, pc
    integer(c_int64_t), parameter :: shape(3) = [12, 10, 9]
    cases = cases + 1
    bad = cfg
    bad%fft_kind = DTR_FFT_C2C
    call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, [12_c_int64_t, 0_c_int64_t, 9_c_int64_t], DTR_COMPLEX64, &
                                             DTR_AUTOTUNE_FFT, pr, pc, bad), DTR_INVALID_ARGUMENT, 'shape with 0')
    call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, shape, DTR_INT8, DTR_AUTOTUNE_FFT, pr, pc, bad), &
                           DTR_INVALID_ARGUMENT, 'C2C of int8')
    call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, shape, DTR_COMPLEX64, 9_c_int, pr, pc, bad), &
                           DTR_INVALID_ARGUMENT, 'target 9')
    bad%iterations = 0
    call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, shape, DTR_COMPLEX64, DTR_AUTOTUNE_FFT, pr, pc, bad), &
                           DTR_INVALID_ARGUMENT, 'iterations 0')
    bad%iterations = 2
    if (rank == ranks - 1) bad%howmany = 0
    call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, shape, DTR_FLOAT32, DTR_AUTOTUNE_TRANSPOSES, pr, pc, bad), &
                           DTR_INVALID_ARGUMENT, 'howmany 0 on one rank')
    if (ranks > 1) then
      bad = cfg
      bad%fft_kind = DTR_FFT_C2C
      bad%iterations = 2 + rank
      call expect_everywhere(dtr_grid_autotune(MPI_COMM_WORLD, shape, DTR_COMPLEX64, DTR_AUTOTUNE_FFT, pr, pc, bad), &
                             DTR_MISMATCH, 'iterations differing between ranks')
    end if
  end subroutine

end program test_fortran_autotune

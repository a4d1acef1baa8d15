;; Nearest and second-nearest Hamming distances of 256-bit ORB descriptors, restricted to cells.
;; Built into hamming-kernel.wasm.ts by `npm run build:wasm` (tools/wasm/build.ts); the test checks the two agree.
;;
;; Memory layout, all offsets in bytes and chosen by the caller:
;;   $query   nq descriptors of 32 bytes
;;   $cells   nq i32: the dense cell index of each query descriptor, -1 for none
;;   $target  the target descriptors, 32 bytes each, sorted so that every cell's descriptors are contiguous
;;   $ranges  per dense cell two i32: first and one-past-last position in $target
;;   $out     per query descriptor three i32: position of the nearest target descriptor in $target (-1 if the cell is
;;            empty), its distance, and the second-nearest distance (1000 when there is none)
;; `gatherRows` writes $target from the caller's rows in cell order, so the caller copies its rows in one piece.
(module
  (memory (export "memory") 1)
  (func (export "nearestTwoInCells")
    (param $query i32) (param $nq i32) (param $cells i32) (param $target i32) (param $ranges i32) (param $out i32)
    (local $i i32) (local $cell i32) (local $k i32) (local $end i32) (local $q i32) (local $t i32)
    (local $d i32) (local $best i32) (local $second i32) (local $bestK i32)
    (local $q0 i64) (local $q1 i64) (local $q2 i64) (local $q3 i64)
    (block $queriesDone
      (loop $queries
        (br_if $queriesDone (i32.ge_u (local.get $i) (local.get $nq)))
        (local.set $best (i32.const 1000))
        (local.set $second (i32.const 1000))
        (local.set $bestK (i32.const -1))
        (local.set $cell (i32.load (i32.add (local.get $cells) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ge_s (local.get $cell) (i32.const 0))
          (then
            (local.set $k (i32.load (i32.add (local.get $ranges) (i32.shl (local.get $cell) (i32.const 3)))))
            (local.set $end (i32.load offset=4 (i32.add (local.get $ranges) (i32.shl (local.get $cell) (i32.const 3)))))
            ;; The query descriptor stays in locals: TurboFan does not hoist its loads out of the target loop.
            (local.set $q (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 5))))
            (local.set $q0 (i64.load (local.get $q)))
            (local.set $q1 (i64.load offset=8 (local.get $q)))
            (local.set $q2 (i64.load offset=16 (local.get $q)))
            (local.set $q3 (i64.load offset=24 (local.get $q)))
            (local.set $t (i32.add (local.get $target) (i32.shl (local.get $k) (i32.const 5))))
            (block $cellDone
              (loop $targets
                (br_if $cellDone (i32.ge_u (local.get $k) (local.get $end)))
                ;; The distance as four 64-bit popcounts (one instruction each on x86-64 and arm64), written out here
                ;; rather than called: V8's baseline compiler does not inline calls.
                (local.set $d
                  (i32.wrap_i64
                    (i64.add
                      (i64.add
                        (i64.popcnt (i64.xor (local.get $q0) (i64.load (local.get $t))))
                        (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=8 (local.get $t)))))
                      (i64.add
                        (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=16 (local.get $t))))
                        (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=24 (local.get $t))))))))
                ;; Most targets are farther than the second nearest: one comparison rejects them.
                (if (i32.lt_u (local.get $d) (local.get $second))
                  (then
                    (if (i32.lt_u (local.get $d) (local.get $best))
                      (then
                        (local.set $second (local.get $best))
                        (local.set $best (local.get $d))
                        (local.set $bestK (local.get $k)))
                      (else (local.set $second (local.get $d))))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (local.set $t (i32.add (local.get $t) (i32.const 32)))
                (br $targets)))))
        (i32.store (local.get $out) (local.get $bestK))
        (i32.store offset=4 (local.get $out) (local.get $best))
        (i32.store offset=8 (local.get $out) (local.get $second))
        (local.set $out (i32.add (local.get $out) (i32.const 12)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $queries))))

  ;; Row k of $dst (32 bytes) is row $order[k] of $src, for k < $n.
  (func (export "gatherRows") (param $src i32) (param $order i32) (param $n i32) (param $dst i32)
    (local $k i32) (local $from i32)
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $from (i32.add (local.get $src) (i32.shl (i32.load (local.get $order)) (i32.const 5))))
        (i64.store (local.get $dst) (i64.load (local.get $from)))
        (i64.store offset=8 (local.get $dst) (i64.load offset=8 (local.get $from)))
        (i64.store offset=16 (local.get $dst) (i64.load offset=16 (local.get $from)))
        (i64.store offset=24 (local.get $dst) (i64.load offset=24 (local.get $from)))
        (local.set $order (i32.add (local.get $order) (i32.const 4)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $rows)))))

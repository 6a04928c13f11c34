;; The sign-code scan of dense search (code-index.ts), sixteen codes at a time: the "fast scan" of
;; Faiss (André, Kermarrec and Le Scouarnec), with WebAssembly's i8x16.swizzle in place of pshufb.
;;
;; Codes sit in groups of 16: byte j of the group's 16 codes is 16 contiguous bytes at 16·j, so one
;; load brings the same byte of 16 codes. Each byte holds two nibbles (4 sign bits each); each
;; nibble has a table of 16 entries of at most 127 (its 16 values' quantised contribution), and a
;; swizzle looks up 16 codes' nibbles at once. A byte's two entries add up within a byte; the sums
;; go into 16-bit lanes, which the caller's tables keep from overflowing. Assembled by
;; `npm run build:wasm` into fast-scan.wasm.ts.
(module
  (memory (export "memory") 1 65536)

  ;; Scores `groups` groups of codes at `codes` (`bytes` bytes a code, a multiple of 4) through the
  ;; tables at `tables` (32 bytes per code byte: its low nibble's table, then its high nibble's),
  ;; writing 16 unsigned 16-bit sums a group to `scores` (code 16·g + l at scores + 2·(16·g + l)).
  (func (export "scan") (param $codes i32) (param $groups i32) (param $bytes i32) (param $tables i32) (param $scores i32)
    (local $g i32) (local $j i32) (local $t i32)
    (local $v v128) (local $low v128) (local $sumLow v128) (local $sumHigh v128) (local $nibble v128)
    (local.set $nibble (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $g) (local.get $groups)))
        (local.set $sumLow (v128.const i64x2 0 0))
        (local.set $sumHigh (v128.const i64x2 0 0))
        (local.set $t (local.get $tables))
        (local.set $j (i32.const 0))
        ;; Four bytes a turn (codes are whole 32-bit words).
        (loop $byte
          (local.set $v (v128.load (local.get $codes)))
          (local.set $low
            (i8x16.add
              (i8x16.swizzle (v128.load (local.get $t)) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.swizzle (v128.load offset=16 (local.get $t)) (v128.and (i16x8.shr_u (local.get $v) (i32.const 4)) (local.get $nibble)))))
          (local.set $sumLow (i16x8.add (local.get $sumLow) (i16x8.extend_low_i8x16_u (local.get $low))))
          (local.set $sumHigh (i16x8.add (local.get $sumHigh) (i16x8.extend_high_i8x16_u (local.get $low))))
          (local.set $v (v128.load offset=16 (local.get $codes)))
          (local.set $low
            (i8x16.add
              (i8x16.swizzle (v128.load offset=32 (local.get $t)) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.swizzle (v128.load offset=48 (local.get $t)) (v128.and (i16x8.shr_u (local.get $v) (i32.const 4)) (local.get $nibble)))))
          (local.set $sumLow (i16x8.add (local.get $sumLow) (i16x8.extend_low_i8x16_u (local.get $low))))
          (local.set $sumHigh (i16x8.add (local.get $sumHigh) (i16x8.extend_high_i8x16_u (local.get $low))))
          (local.set $v (v128.load offset=32 (local.get $codes)))
          (local.set $low
            (i8x16.add
              (i8x16.swizzle (v128.load offset=64 (local.get $t)) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.swizzle (v128.load offset=80 (local.get $t)) (v128.and (i16x8.shr_u (local.get $v) (i32.const 4)) (local.get $nibble)))))
          (local.set $sumLow (i16x8.add (local.get $sumLow) (i16x8.extend_low_i8x16_u (local.get $low))))
          (local.set $sumHigh (i16x8.add (local.get $sumHigh) (i16x8.extend_high_i8x16_u (local.get $low))))
          (local.set $v (v128.load offset=48 (local.get $codes)))
          (local.set $low
            (i8x16.add
              (i8x16.swizzle (v128.load offset=96 (local.get $t)) (v128.and (local.get $v) (local.get $nibble)))
              (i8x16.swizzle (v128.load offset=112 (local.get $t)) (v128.and (i16x8.shr_u (local.get $v) (i32.const 4)) (local.get $nibble)))))
          (local.set $sumLow (i16x8.add (local.get $sumLow) (i16x8.extend_low_i8x16_u (local.get $low))))
          (local.set $sumHigh (i16x8.add (local.get $sumHigh) (i16x8.extend_high_i8x16_u (local.get $low))))
          (local.set $codes (i32.add (local.get $codes) (i32.const 64)))
          (local.set $t (i32.add (local.get $t) (i32.const 128)))
          (local.set $j (i32.add (local.get $j) (i32.const 4)))
          (br_if $byte (i32.lt_u (local.get $j) (local.get $bytes))))
        (v128.store (local.get $scores) (local.get $sumLow))
        (v128.store offset=16 (local.get $scores) (local.get $sumHigh))
        (local.set $scores (i32.add (local.get $scores) (i32.const 32)))
        (local.set $g (i32.add (local.get $g) (i32.const 1)))
        (br $group))))

  ;; Counts the first `n` scores at `scores` by value into the 32-bit bins at `histogram` (which
  ;; the caller has zeroed: one bin per possible score).
  (func (export "histogram") (param $scores i32) (param $n i32) (param $histogram i32)
    (local $end i32) (local $bin i32)
    (local.set $end (i32.add (local.get $scores) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $scores) (local.get $end)))
        (local.set $bin (i32.add (local.get $histogram) (i32.shl (i32.load16_u (local.get $scores)) (i32.const 2))))
        (i32.store (local.get $bin) (i32.add (i32.load (local.get $bin)) (i32.const 1)))
        (local.set $scores (i32.add (local.get $scores) (i32.const 2)))
        (br $next))))

;; Writes to `out` (32-bit) the places, in order, of the first `n` scores above `cut`, and of the
  ;; first `ties` scores equal to it; returns how many it wrote. Eight scores at a time are skipped
  ;; when none reaches the cut (the scores region holds whole groups, so eight can always be read).
  (func (export "collect") (param $scores i32) (param $n i32) (param $cut i32) (param $ties i32) (param $out i32) (result i32)
    (local $i i32) (local $s i32) (local $k i32) (local $end i32) (local $reach v128)
    (local.set $reach (i16x8.splat (local.get $cut)))
    (block $done
      (loop $eight
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (v128.any_true (i16x8.ge_u (v128.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 1)))) (local.get $reach)))
          (then
            (local.set $end (select (i32.add (local.get $i) (i32.const 8)) (local.get $n) (i32.lt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n))))
            (loop $one
              (local.set $s (i32.load16_u (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 1)))))
              (if (i32.gt_u (local.get $s) (local.get $cut))
                (then
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $i))
                  (local.set $k (i32.add (local.get $k) (i32.const 1))))
                (else
                  (if (i32.and (i32.eq (local.get $s) (local.get $cut)) (i32.gt_s (local.get $ties) (i32.const 0)))
                    (then
                      (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $i))
                      (local.set $k (i32.add (local.get $k) (i32.const 1)))
                      (local.set $ties (i32.sub (local.get $ties) (i32.const 1)))))))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br_if $one (i32.lt_u (local.get $i) (local.get $end)))))
          (else (local.set $i (i32.add (local.get $i) (i32.const 8)))))
        (br $eight)))
    (local.get $k)))

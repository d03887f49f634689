//go:build goexperiment.simd

#include "textflag.h"

// The matrix kernels compute one tile of C (+)= A·B with the tile in twelve
// YMM accumulators (Y0–Y11). A is read in place: AX points at the tile's
// first row, R10 holds the row stride in bytes, and the k steps walk along
// the rows 4 bytes at a time. B is one packed panel, the k steps' rows of
// the tile's width one after another. Loops are unrolled to amortise their
// bookkeeping; an odd remainder of k runs one step at a time.

// STEP6x16 is k step o (counted from AX and BX) of the 6×16 tile: two
// loads of B, six broadcasts of A (rows 3–5 through R12), twelve FMAs.
#define STEP6x16(o) \
	VMOVUPS      o*64(BX), Y12; \
	VMOVUPS      o*64+32(BX), Y13; \
	VBROADCASTSS o*4(AX), Y14; \
	VFMADD231PS  Y12, Y14, Y0; \
	VFMADD231PS  Y13, Y14, Y1; \
	VBROADCASTSS o*4(AX)(R10*1), Y15; \
	VFMADD231PS  Y12, Y15, Y2; \
	VFMADD231PS  Y13, Y15, Y3; \
	VBROADCASTSS o*4(AX)(R10*2), Y14; \
	VFMADD231PS  Y12, Y14, Y4; \
	VFMADD231PS  Y13, Y14, Y5; \
	VBROADCASTSS o*4(R12), Y15; \
	VFMADD231PS  Y12, Y15, Y6; \
	VFMADD231PS  Y13, Y15, Y7; \
	VBROADCASTSS o*4(R12)(R10*1), Y14; \
	VFMADD231PS  Y12, Y14, Y8; \
	VFMADD231PS  Y13, Y14, Y9; \
	VBROADCASTSS o*4(R12)(R10*2), Y15; \
	VFMADD231PS  Y12, Y15, Y10; \
	VFMADD231PS  Y13, Y15, Y11

// STEP4x24 is k step o of the 4×24 tile: three loads of B, four
// broadcasts of A (row 3 through R11 = 3·R10), twelve FMAs.
#define STEP4x24(o) \
	VMOVUPS      o*96(BX), Y12; \
	VMOVUPS      o*96+32(BX), Y13; \
	VMOVUPS      o*96+64(BX), Y14; \
	VBROADCASTSS o*4(AX), Y15; \
	VFMADD231PS  Y12, Y15, Y0; \
	VFMADD231PS  Y13, Y15, Y1; \
	VFMADD231PS  Y14, Y15, Y2; \
	VBROADCASTSS o*4(AX)(R10*1), Y15; \
	VFMADD231PS  Y12, Y15, Y3; \
	VFMADD231PS  Y13, Y15, Y4; \
	VFMADD231PS  Y14, Y15, Y5; \
	VBROADCASTSS o*4(AX)(R10*2), Y15; \
	VFMADD231PS  Y12, Y15, Y6; \
	VFMADD231PS  Y13, Y15, Y7; \
	VFMADD231PS  Y14, Y15, Y8; \
	VBROADCASTSS o*4(AX)(R11*1), Y15; \
	VFMADD231PS  Y12, Y15, Y9; \
	VFMADD231PS  Y13, Y15, Y10; \
	VFMADD231PS  Y14, Y15, Y11

#define ZERO12 \
	VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; VXORPS Y9, Y9, Y9; VXORPS Y10, Y10, Y10; VXORPS Y11, Y11, Y11

// Storing a row of the tile at DX, adding what C holds (ADD) or not (SET),
// then moving DX to the next row (R8 is C's row stride in bytes).
#define ADD2(y0, y1) \
	VADDPS (DX), y0, y0; VADDPS 32(DX), y1, y1; \
	VMOVUPS y0, (DX); VMOVUPS y1, 32(DX); ADDQ R8, DX
#define SET2(y0, y1) \
	VMOVUPS y0, (DX); VMOVUPS y1, 32(DX); ADDQ R8, DX
#define ADD3(y0, y1, y2) \
	VADDPS (DX), y0, y0; VADDPS 32(DX), y1, y1; VADDPS 64(DX), y2, y2; \
	VMOVUPS y0, (DX); VMOVUPS y1, 32(DX); VMOVUPS y2, 64(DX); ADDQ R8, DX
#define SET3(y0, y1, y2) \
	VMOVUPS y0, (DX); VMOVUPS y1, 32(DX); VMOVUPS y2, 64(DX); ADDQ R8, DX

// func kernel6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc int, tiles int)
//
// C[0:6][0:16] (+)= A[0:6][0:k] · B, B a panel of k rows of 16 floats, for
// tiles tiles down the rows of A and C, one after another.
TEXT ·kernel6x16(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), DI
	MOVQ a+8(FP), R13
	MOVQ lda+16(FP), R10
	MOVQ b+24(FP), SI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	MOVQ acc+48(FP), R9
	MOVQ tiles+56(FP), R11
	SHLQ $2, R10
	SHLQ $2, R8

tile16:
	MOVQ R13, AX
	MOVQ SI, BX
	MOVQ DI, CX
	LEAQ (R10)(R10*2), R12
	ADDQ AX, R12 // row 3 of A
	ZERO12
	CMPQ CX, $4
	JLT  tail16

	PCALIGN $64
loop16x4:
	STEP6x16(0)
	STEP6x16(1)
	STEP6x16(2)
	STEP6x16(3)
	ADDQ $16, AX
	ADDQ $16, R12
	ADDQ $256, BX
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop16x4

tail16:
	TESTQ CX, CX
	JEQ   store16
loop16:
	STEP6x16(0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $64, BX
	DECQ CX
	JNE  loop16

store16:
	TESTQ R9, R9
	JEQ   set16
	ADD2(Y0, Y1)
	ADD2(Y2, Y3)
	ADD2(Y4, Y5)
	ADD2(Y6, Y7)
	ADD2(Y8, Y9)
	ADD2(Y10, Y11)
	JMP   next16
set16:
	SET2(Y0, Y1)
	SET2(Y2, Y3)
	SET2(Y4, Y5)
	SET2(Y6, Y7)
	SET2(Y8, Y9)
	SET2(Y10, Y11)
next16:
	LEAQ (R10)(R10*2), R12
	LEAQ (R13)(R12*2), R13 // six rows down A; DX is six rows down C
	DECQ R11
	JNE  tile16
	VZEROUPPER
	RET

// func kernel4x24(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc int, tiles int)
//
// C[0:4][0:24] (+)= A[0:4][0:k] · B, B a panel of k rows of 24 floats, for
// tiles tiles down the rows of A and C, one after another; the k loop is
// unrolled eight times (in L1, 97–99 GFLOPS against 71–94 unrolled four
// times).
TEXT ·kernel4x24(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), DI
	MOVQ a+8(FP), R13
	MOVQ lda+16(FP), R10
	MOVQ b+24(FP), SI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	MOVQ acc+48(FP), R9
	MOVQ tiles+56(FP), R12
	SHLQ $2, R10
	SHLQ $2, R8
	LEAQ (R10)(R10*2), R11

tile24:
	MOVQ R13, AX
	MOVQ SI, BX
	MOVQ DI, CX
	ZERO12
	CMPQ CX, $8
	JLT  tail24

	PCALIGN $64
loop24x8:
	STEP4x24(0)
	STEP4x24(1)
	STEP4x24(2)
	STEP4x24(3)
	STEP4x24(4)
	STEP4x24(5)
	STEP4x24(6)
	STEP4x24(7)
	ADDQ $32, AX
	ADDQ $768, BX
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop24x8

tail24:
	TESTQ CX, CX
	JEQ   store24
loop24:
	STEP4x24(0)
	ADDQ $4, AX
	ADDQ $96, BX
	DECQ CX
	JNE  loop24

store24:
	TESTQ R9, R9
	JEQ   set24
	ADD3(Y0, Y1, Y2)
	ADD3(Y3, Y4, Y5)
	ADD3(Y6, Y7, Y8)
	ADD3(Y9, Y10, Y11)
	JMP   next24
set24:
	SET3(Y0, Y1, Y2)
	SET3(Y3, Y4, Y5)
	SET3(Y6, Y7, Y8)
	SET3(Y9, Y10, Y11)
next24:
	LEAQ (R13)(R10*4), R13 // four rows down A; DX is four rows down C
	DECQ R12
	JNE  tile24
	VZEROUPPER
	RET

// func transposeBlocks(dst *float32, ldd int, src *float32, lds int, iBlocks, jBlocks int)
//
// dst[i·ldd+j] = src[j·lds+i] for i < 8·iBlocks, j < 8·jBlocks, by 8×8
// blocks (row strides in floats): each block's rows interleaved in pairs,
// then pairs of pairs, then the 128-bit halves swapped across.
TEXT ·transposeBlocks(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ iBlocks+32(FP), R12
	SHLQ $2, R8
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10 // 3 source rows
	LEAQ (R8)(R8*2), DX  // 3 destination rows

tiblock:
	MOVQ DI, AX // destination block (i, 0)
	MOVQ SI, BX // source block (0, i)
	MOVQ jBlocks+40(FP), R13

tjblock:
	LEAQ      (BX)(R9*4), R11 // source row 4
	VMOVUPS   (BX), Y0
	VMOVUPS   (BX)(R9*1), Y1
	VMOVUPS   (BX)(R9*2), Y2
	VMOVUPS   (BX)(R10*1), Y3
	VMOVUPS   (R11), Y4
	VMOVUPS   (R11)(R9*1), Y5
	VMOVUPS   (R11)(R9*2), Y6
	VMOVUPS   (R11)(R10*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS   $0x44, Y10, Y8, Y0
	VSHUFPS   $0xEE, Y10, Y8, Y1
	VSHUFPS   $0x44, Y11, Y9, Y2
	VSHUFPS   $0xEE, Y11, Y9, Y3
	VSHUFPS   $0x44, Y14, Y12, Y4
	VSHUFPS   $0xEE, Y14, Y12, Y5
	VSHUFPS   $0x44, Y15, Y13, Y6
	VSHUFPS   $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	LEAQ      (AX)(R8*4), R11 // destination row 4
	VMOVUPS   Y8, (AX)
	VMOVUPS   Y9, (AX)(R8*1)
	VMOVUPS   Y10, (AX)(R8*2)
	VMOVUPS   Y11, (AX)(DX*1)
	VMOVUPS   Y12, (R11)
	VMOVUPS   Y13, (R11)(R8*1)
	VMOVUPS   Y14, (R11)(R8*2)
	VMOVUPS   Y15, (R11)(DX*1)
	ADDQ      $32, AX         // next block along the destination row
	LEAQ      (BX)(R9*8), BX  // eight source rows down
	DECQ      R13
	JNE       tjblock
	LEAQ      (DI)(R8*8), DI  // eight destination rows down
	ADDQ      $32, SI         // eight source columns on
	DECQ      R12
	JNE       tiblock
	VZEROUPPER
	RET

// func copyPanel(dst *float32, w8 int, src *float32, lds int, rows int)
//
// dst[r·8·w8+j] = src[r·lds+j] for j < 8·w8 and r < rows (both ≥ 1): rows
// of a matrix into a packed panel of the same width.
TEXT ·copyPanel(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ w8+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ rows+32(FP), R10
	SHLQ $2, R9

cprow:
	MOVQ SI, BX
	MOVQ R8, CX

cpvec:
	VMOVUPS (BX), Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNE     cpvec
	ADDQ    R9, SI
	DECQ    R10
	JNE     cprow
	VZEROUPPER
	RET

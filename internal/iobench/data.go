package iobench

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Sector is the unit the probe stamps its data in: the first 8 bytes of
// every 512-byte sector of a file it writes hold the sector's offset in
// the file (little-endian), the rest comes from a fixed pseudo-random
// pattern. A read of any aligned span can check every stamp at the cost
// of a compare per sector, so a short read or a read of the wrong place
// is caught, and a test can verify a whole file byte by byte.
const Sector = 512

// align is the buffer and offset alignment of O_DIRECT I/O.
const align = 4096

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is the CRC-32C (Castagnoli) of b, as databases compute page
// checksums; hash/crc32 uses the CPU's instruction where there is one.
func CRC32C(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// patternLen is the length of the pseudo-random pattern; a multiple of
// every block size the probe takes up to 1 MiB, and larger blocks repeat it.
const patternLen = 1 << 20

// pattern is the fixed pseudo-random content under the stamps, made on
// first use: every run of the program would pay for it otherwise.
var pattern = sync.OnceValue(func() []byte {
	b := make([]byte, patternLen)
	r := rand.New(rand.NewPCG(16, 0x10be))
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b
})

// alignedBuf returns n bytes whose address is a multiple of align.
func alignedBuf(n int) []byte {
	b := make([]byte, n+align)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&b[0])) % align); r != 0 {
		off = align - r
	}
	return b[off : off+n : off+n]
}

// Fill writes the content of the file span [off, off+len(b)) into b: the
// pattern with each sector's stamp. off and len(b) are multiples of Sector.
func Fill(b []byte, off int64) {
	pat := pattern()
	for i := 0; i < len(b); {
		p := int((off + int64(i)) % patternLen)
		n := copy(b[i:], pat[p:])
		i += n
	}
	stamp(b, off)
}

func stamp(b []byte, off int64) {
	for i := 0; i+8 <= len(b); i += Sector {
		binary.LittleEndian.PutUint64(b[i:], uint64(off)+uint64(i))
	}
}

// SealCRC writes the CRC-32C of the block's other bytes into its last 4
// bytes (little-endian), as a database writes a page checksum.
func SealCRC(b []byte) {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], CRC32C(b[:n]))
}

// CheckStamps reports the first sector of b (read from file offset off)
// whose stamp is not its offset.
func CheckStamps(b []byte, off int64) error {
	for i := 0; i+8 <= len(b); i += Sector {
		if got := binary.LittleEndian.Uint64(b[i:]); got != uint64(off)+uint64(i) {
			return fmt.Errorf("the sector at offset %d holds the stamp of offset %d", off+int64(i), int64(got))
		}
	}
	return nil
}

// CheckEnds is CheckStamps for b's first and last sectors only: what a
// read checks unless it verifies everything (Config.Verify).
func CheckEnds(b []byte, off int64) error {
	if len(b) <= 2*Sector {
		return CheckStamps(b, off)
	}
	last := (len(b) - 1) / Sector * Sector
	if err := CheckStamps(b[:Sector], off); err != nil {
		return err
	}
	return CheckStamps(b[last:], off+int64(last))
}

// Verify checks that b, read from file offset off, is what Fill wrote
// there, blocks of block bytes sealed with SealCRC when crc is set.
func Verify(b []byte, off int64, block int, crc bool) error {
	want := make([]byte, len(b))
	Fill(want, off)
	for i := 0; i < len(b); i += block {
		end := min(i+block, len(b))
		blk, w := b[i:end], want[i:end]
		n := len(blk)
		if crc && n == block {
			if got, sum := binary.LittleEndian.Uint32(blk[n-4:]), CRC32C(blk[:n-4]); got != sum {
				return fmt.Errorf("the block at offset %d has CRC32C %08x, its bytes give %08x", off+int64(i), got, sum)
			}
			n -= 4
		}
		for j := 0; j < n; j++ {
			if blk[j] != w[j] {
				return fmt.Errorf("byte %d (offset %d) is %#x, %#x was written", j, off+int64(i+j), blk[j], w[j])
			}
		}
	}
	return nil
}

// ParseSize reads a byte count: a number with an optional unit, k/KiB,
// M/MiB, G/GiB, T/TiB (powers of 1024; KB, MB, GB and TB are powers of
// 1000), or B.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tib": 1 << 40, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v < 0 || v*mult > 1<<62 {
		return 0, fmt.Errorf("%q is not a size (give bytes, or a number with KiB, MiB, GiB)", s)
	}
	return int64(v * mult), nil
}

// FormatSize writes n bytes with a binary unit: 512B, 8KiB, 1.5MiB.
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	t := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	return t + units[u]
}

#!/usr/bin/env bash
# How the seed corpora in tests/fuzz/corpus/ were made (Debian 12, x86-64,
# root). Not part of the build: the seeds are committed, and a rerun gives
# other bytes (addresses, inodes, build-ids), which is fine for seeds.
#   bash tests/fuzz/seedgen/gen.sh [OUT_DIR]     (default: a temporary dir)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"/{elf_syms,proc_maps,ksyms,cli,events,tracker,unwind_table}
work=$(mktemp -d)
cd "$work"

# elf_syms: two real system libraries (a .dynsym-only glibc stub, a
# stripped zlib), a tiny program (PIE with a 24-byte build-id, stripped
# copy, non-PIE), the vDSO, and tiny 32-bit / big-endian / aarch64 files.
cp /lib/x86_64-linux-gnu/libdl.so.2 "$out/elf_syms/libdl.so.2"
cp /lib/x86_64-linux-gnu/libz.so.1.2.13 "$out/elf_syms/libz.so.1"
gcc -O1 -fPIE -pie -o "$out/elf_syms/tiny_pie" "$here/tiny.c" \
	-Wl,--build-id=0x00112233445566778899aabbccddeeff0011223344556677
strip -o "$out/elf_syms/tiny_pie.stripped" "$out/elf_syms/tiny_pie"
gcc -O1 -no-pie -o "$out/elf_syms/tiny_exec" "$here/tiny.c"
python3 "$here/version_name_overlap.py" "$out/elf_syms/tiny_pie" \
	"$out/elf_syms/tiny_pie.version_name_overlap"
clang -m32 -O1 -nostdlib -static -fuse-ld=lld -Wl,--build-id=sha1 \
	-o "$out/elf_syms/i386_static" "$here/nostd.c"
clang --target=powerpc64-linux-gnu -O1 -nostdlib -shared -fPIC -fuse-ld=lld \
	-Wl,--build-id=md5 -o "$out/elf_syms/ppc64_be.so" "$here/nostd.c"
clang --target=mips-linux-gnu -O1 -nostdlib -static -fuse-ld=lld \
	-o "$out/elf_syms/mips32_be_exec" "$here/nostd.c" 2>/dev/null
clang --target=aarch64-linux-gnu -O1 -nostdlib -shared -fuse-ld=lld \
	-Wl,-z,max-page-size=4096 -o "$out/elf_syms/aarch64.so" "$here/nostd.c"

# proc_maps: a real snapshot with a deleted file, spaces in a name and a
# memfd (snap_maps.c), the maps of a python3 process, and hand-written edge
# cases (32-bit addresses, widest fields, no final newline).
gcc -O1 -o snap_maps "$here/snap_maps.c" && ./snap_maps
cp maps_snapshot "$out/proc_maps/self_maps"
cp vdso.so "$out/elf_syms/vdso_x86_64.so"
python3 -c "import ssl; print(open('/proc/self/maps').read(), end='')" > "$out/proc_maps/python_maps"
printf '08048000-08049000 r-xp 00000000 08:01 1234       /usr/bin/legacy32\n08049000-0804a000 rw-p 00000000 08:01 1234       /usr/bin/legacy32\nf7f00000-f7f02000 r-xp 00000000 00:00 0          [vdso]\n' \
	> "$out/proc_maps/maps_32bit"
printf '7f0000000000-7f0000001000 r-xp 00000000 103:02 18446744073709551615                     /opt/app/lib/libx.so (deleted)\n7f0000001000-7f0000002000 r-xs 0000ffff 1ff:fffff 4294967296 /dev/shm/a b  c\n7f0000002000-7f0000003000 ---p 00000000 00:00 0 \n7f0000003000-7f0000004000 r-xp 00000000 00:00 0 (deleted)\n' \
	> "$out/proc_maps/maps_edge"
printf 'ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]' \
	> "$out/proc_maps/maps_no_eol"

# unwind_table: the x86-64 ELF seeds above (.eh_frame), an i386 one (refused),
# and the tiny program with its CFI in .debug_frame only.
for f in tiny_pie tiny_pie.stripped tiny_exec vdso_x86_64.so libdl.so.2 i386_static libz.so.1; do
	cp "$out/elf_syms/$f" "$out/unwind_table/"
done
gcc -O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -o dbgframe "$here/tiny.c"
objcopy -R .eh_frame -R .eh_frame_hdr -R .debug_info -R .debug_line -R .debug_str \
	-R .debug_abbrev -R .debug_aranges -R .debug_line_str -R .debug_rnglists \
	-R .debug_loclists dbgframe "$out/unwind_table/tiny_debug_frame_only"
# regression: a CFI register number that made libdw allocate ~1.1 GB
python3 "$here/huge_register.py" "$out/elf_syms/tiny_pie" "$out/unwind_table/tiny_pie.huge_register"

# ksyms: ~150 real lines (start of the text, W aliases, a middle slice, the
# data at the end), module lines in the kernel's format (this machine had
# no module loaded), hidden addresses (kptr_restrict), aliases without a
# final newline.
{ sed -n 1,60p /proc/kallsyms; sed -n 525,545p /proc/kallsyms
  sed -n 60000,60040p /proc/kallsyms; tail -n 30 /proc/kallsyms; } > real
python3 - <<'EOF'
import random
random.seed(7)
out = []
for m, base in {'ext4': 0xffffffffc0a00000, 'bpf_preload': 0xffffffffc0100000,
                'nf_tables': 0xffffffffc0b20000}.items():
    a = base
    for i, n in enumerate(['init_module', 'cleanup_module', m + '_read', m + '_write',
                           '__pfx_' + m + '_fill', m + '_fill']):
        out.append('%016x %s %s\t[%s]\n' % (a, 'tT'[i % 2], n, m))
        a += random.choice([0x10, 0x40, 0x120])
    out.append('%016x d %s_data\t[%s]\n' % (a + 0x8000, m, m))
out.append('ffffffffc0002d54 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n')
out.append('ffffffffc0003000 t bpf_trampoline_6442491578\t[bpf]\n')
open('modules', 'w').write(''.join(out))
EOF
cat real modules > "$out/ksyms/kallsyms_slice"
cp modules "$out/ksyms/kallsyms_modules"
sed -n 1,20p /proc/kallsyms | sed 's/^[0-9a-f]*/0000000000000000/' > "$out/ksyms/kallsyms_hidden"
printf 'ffffffff81000000 T _text\nffffffff81000000 T _stext\nffffffff81001000 W weak_alias\nffffffff81001000 T strong_one\nffffffff81002000 t last_one' \
	> "$out/ksyms/kallsyms_aliases_no_eol"

# cli: argument vectors, each argument followed by a NUL byte.
w() { local f=$1; shift; printf '%s\0' "$@" > "$out/cli/$f"; }
w defaults -a
w system_10s -d 10 -o system.folded
w pids -p 1234,5678 -F 199 -U -o app.folded
w command -K -F 997 -- ls -lR /usr
w long_opts --freq=49 --duration=2.5 --pid=1 --all-cpus --kernel-only --output=x \
	--max-stacks=65536 --btf=/sys/kernel/btf/vmlinux --verbose
w cluster -avU -F1 -d0.5
w help_cluster -hv
w version --version
w bad_missing_arg -o
w bad_unknown -x --nope
w conflict -U -K -p 1 -- true
w bad_numbers -F 0 -d nan -p 0x10 --max-stacks 99999999999
w unexpected_arg -a stray
w fleet --interval 60 --output-dir /var/lib/bpfprof --max-files 500 --max-bytes 512M \
	--push http://localhost:4040 --app my.app --spool-max 10 --format both
w pprof_output -d 5 -o out.pb.gz
w double_dash_as_arg -o -- true
w events -e cycles:u,instructions -c 100000 -t 12,13 --comm worker \
	--cgroup /sys/fs/cgroup/app -o ev.folded
w offcpu --off-cpu --min-block 1000 -e sched:sched_switch,u:/usr/bin/bash:readline -- sleep 1
w list --list
w call_graph_dwarf --call-graph dwarf --unwind-rows 1048576 -F 49 -- ./a.out

# events: -e lists, after a first byte that fuzz_events.c reads as room for
# 8 events and a 256-byte error buffer (0x81: room for 3, a 1-byte buffer).
e() { printf '\x08%s' "$2" > "$out/events/$1"; }
e cpu_clock 'cpu-clock'
e counters 'cycles:u,instructions:k,cache-misses,branch-misses,page-faults,cs,migrations'
e tracepoint 'sched:sched_switch,syscalls:sys_enter_openat'
e uprobe 'u:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc,uprobe:/usr/bin/bash:readline'
e mixed 'task-clock,block:block_rq_issue,u:/opt/my app/bin/app:main'
e bad_modifier 'cpu-clock:x'
e bad_tp 'a:b:c'
e empty_items ',,,'
printf '\x81cycles,instructions,ref-cycles,cs' > "$out/events/too_many_small_err"

# tracker: real records from the kernel (capture_tracking.c: bpfprof's
# tracking event on CPU 0 while a child forks, execs and exits), the same
# reordered over two rounds, and hand-made lost / thread / rename records.
gcc -O1 -o capture "$here/capture_tracking.c"
./capture "$out/tracker/real_fork_exec_exit" /bin/true
./capture "$out/tracker/real_sh_child" /bin/sh -c '/bin/true; exit 0'
python3 - "$out/tracker" <<'EOF'
import struct, sys
d = sys.argv[1]
raw = open(d + '/real_sh_child', 'rb').read()
recs, p = [], 0
while p + 8 <= len(raw):
    size = struct.unpack_from('<IHH', raw, p)[2]
    recs.append(raw[p:p + size]); p += size
brk = struct.pack('<IHH', 0xffffffff, 0, 8)	# ROUND_BREAK of fuzz_tracker.c
half = len(recs) // 2
open(d + '/two_rounds_reordered', 'wb').write(
    b''.join(recs[:half][::-1]) + brk + b''.join(recs[half:][::-1]))
sid = lambda pid, time: struct.pack('<IIQ', pid, pid, time)
lost = struct.pack('<IHH', 2, 0, 40) + struct.pack('<QQ', 1, 17) + sid(0, 100)
thr_fork = struct.pack('<IHH', 7, 0, 48) + struct.pack('<IIIIQ', 500, 500, 501, 500, 200) + sid(500, 200)
thr_exit = struct.pack('<IHH', 4, 0, 48) + struct.pack('<IIIIQ', 500, 500, 501, 501, 300) + sid(501, 300)
rename = struct.pack('<IHH', 3, 0, 40) + struct.pack('<II', 500, 500) + b'renamed\0' + sid(500, 250)
fn = b'/tmp/x (deleted)\0'
fn += b'\0' * (-len(fn) % 8)
mm = struct.pack('<IIQQQIIQQII', 500, 500, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2) + fn
mmap2 = struct.pack('<IHH', 10, 2, 8 + len(mm) + 16) + mm + sid(500, 150)
open(d + '/lost_threads_rename', 'wb').write(lost + thr_fork + mmap2 + rename + thr_exit)
EOF

# spool, push_reply: made by push_seeds.py (run from the top, it writes into
# tests/fuzz/corpus/ itself: the bytes are the same every time).

# cgroup_name: one cgroup path of each driver's shape, this machine's
# mountinfo (its cgroup lines and the file systems of /, /proc, /sys, /dev),
# a v2-only node's and a mount point with escapes.
mkdir -p "$out/cgroup_name"
id=0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff
uid=8b2f5c1e-3d4a-4e6f-9a7b-1c2d3e4f5a6b
printf '/system.slice/docker-%s.scope' $id > "$out/cgroup_name/docker_systemd"
printf '/kubepods/burstable/pod%s/%s' $uid $id > "$out/cgroup_name/k8s_cgroupfs"
printf '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope' \
	"${uid//-/_}" $id > "$out/cgroup_name/k8s_systemd"
printf '/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice/crio-conmon-%s.scope' \
	"${uid//-/_}" $id > "$out/cgroup_name/k8s_crio_conmon"
printf '/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-%s.scope/container' $id \
	> "$out/cgroup_name/podman_rootless"
printf '/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service' > "$out/cgroup_name/user_unit"
printf '/default/%s' $id > "$out/cgroup_name/nerdctl_cgroupfs"
grep -E ' / /(proc|sys|dev)? |cgroup' /proc/self/mountinfo > "$out/cgroup_name/mountinfo_hybrid"
printf '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n26 25 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:3 master:1 - cgroup2 cgroup2 rw,nsdelegate\n' \
	> "$out/cgroup_name/mountinfo_v2_only"
printf '30 1 0:30 / /mnt/my\\040cgroups\\134v2 rw - cgroup2 none rw\n' > "$out/cgroup_name/mountinfo_escaped"

rm -rf "$work"
echo "seeds in $out"

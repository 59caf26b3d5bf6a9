# shellcheck shell=bash
# Labels: which cgroup, container, pod and systemd unit each sample ran in.
# Workloads are moved into cgroup v2 directories named and placed as the
# runtimes make them, from the root of the machine's cgroup2 mount
# (/sys/fs/cgroup on a v2-only node, .../unified on a hybrid one): docker's
# cgroupfs driver, Kubernetes' systemd and cgroupfs drivers with containerd
# and CRI-O; a systemd service; and the same names in a subtree delegated to
# a user (user@UID.service), which name no container and no pod. Ids and pod
# UIDs carry this run's pid: runs side by side do not share a cgroup.

echo "== labels: container, pod and unit of each sample; --group-by; --max-cgroups"
MNT=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
LB=$MNT/bpfprof-labels-$$
run_hex=$(printf '%08x' $$)
ID_A=$run_hex$(printf 'a%.0s' $(seq 56))
ID_B=$run_hex$(printf 'b%.0s' $(seq 56))
ID_C=$run_hex$(printf 'c%.0s' $(seq 56))
ID_M=$run_hex$(printf 'e%.0s' $(seq 56))
POD_B=0b1c2d3e-0000-4111-8222-0000$run_hex
POD_C=0c1c2d3e-0000-4111-8222-0000$run_hex
POD_M=0e1c2d3e-0000-4111-8222-0000$run_hex
attacker true	# the user whose delegated subtree mimics the runtimes
AU=$(id -u "$ATTACKER")
USERSVC=$MNT/user.slice/user-$AU.slice/user@$AU.service
declare -A CGDIR=(
	[wl_docker]="$MNT/docker/$ID_A"
	[wl_k8s]="$MNT/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_B//-/_}.slice/cri-containerd-$ID_B.scope"
	[wl_crio]="$MNT/kubepods/besteffort/pod$POD_C/$ID_C"
	[wl_unit]="$LB/system.slice/web.service"
	[wl_host]="$LB/plain"
	[wl_mimic]="$USERSVC/app.slice/docker-$ID_A.scope"
	[wl_mimicpod]="$USERSVC/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_M//-/_}.slice/cri-containerd-$ID_M.scope"
)
# rmdir_up DIR: DIR and each parent it leaves empty, up to the mount (a
# parent another run still uses stays)
rmdir_up() {
	local d=$1
	while [ "$d" != "$MNT" ] && [ "${d#"$MNT"/}" != "$d" ] && rmdir "$d" 2>/dev/null; do
		d=${d%/*}
	done
}
labels_cleanup() {
	local d
	for d in "${CGDIR[@]}"; do
		[ -d "$d" ] && while read -r p; do kill "$p" 2>/dev/null; done <"$d/cgroup.procs"
	done
	sleep 0.2
	for d in "${CGDIR[@]}"; do rmdir_up "$d"; done
	[ -d "$LB" ] && find "$LB" -depth -type d -exec rmdir {} + 2>/dev/null
	return 0
}

if [ -z "$MNT" ] || ! mkdir "$LB"; then
	fail "labels: no cgroup v2 hierarchy to make test cgroups in ($MNT)"
else
	declare -A WPID=()
	for w in wl_docker wl_k8s wl_crio wl_unit wl_host wl_mimic wl_mimicpod; do
		cp "$EX/cpu_chain" "$T/$w"
		mkdir -p "${CGDIR[$w]}"
		# the shell moves itself in, then becomes the workload (until labels_cleanup)
		(echo "$BASHPID" >"${CGDIR[$w]}/cgroup.procs" && exec "$T/$w" 300) &
		WPID[$w]=$!
	done
	sleep 0.3
	# named_run STATS ARGS...: bpfprof ARGS --stats STATS, stderr to STATS.err. A drain
	# names the cgroups it met within a budget (0.1 s); on a machine this busy it can
	# run out, which the run counts (labels.cgroups_named_later): then again (3 tries)
	named_run() {
		local stats=$1 try; shift
		for try in 1 2 3; do
			"$BPFPROF" "$@" --stats "$stats" 2>"$stats.err"
			stat_true "$stats" '.labels.cgroups_named_later == 0' && return 0
			echo "  (run $try: $(stat_of "$stats" .labels.cgroups_named_later) cgroups named later: again)"
		done
	}
	named_run "$T/labels.json" -d 1.5 -o "$T/labels.pb.gz"
	# tags_in FILE [PID]: "KEY=VALUE" lines of go tool pprof -tags, of
	# that process's samples only when PID is given
	tags_in() {
		go tool pprof ${2:+-tagfocus="pid=$2"} -tags "$1" 2>/dev/null |
			awk '/^ [a-z]+: Total/ { k = $1; sub(/:$/, "", k); next }
			     NF >= 3 && k != "" { print k "=" $NF }' | sort -u
	}
	tags_of() { tags_in "$T/labels.pb.gz" "$1"; }
	want_tags() {	# want_tags WORKLOAD CONTAINER POD UNIT: its samples carry exactly these
		local t; t=$(tags_of "${WPID[$1]}")
		local c; c=$(grep '^container=' <<<"$t" | cut -d= -f2- | tr '\n' ' ')
		local p; p=$(grep '^pod=' <<<"$t" | cut -d= -f2- | tr '\n' ' ')
		local u; u=$(grep '^unit=' <<<"$t" | cut -d= -f2- | tr '\n' ' ')
		local sampled=no; grep -qx "comm=$1" <<<"$t" && sampled=yes
		check "labels: $1's samples ($sampled): container '${c% }', pod '${p% }', unit '${u% }'" \
			[ "$sampled|${c% }|${p% }|${u% }" = "yes|$2|$3|$4" ]
	}
	want_tags wl_docker "$ID_A" "" ""
	want_tags wl_k8s "$ID_B" "$POD_B" ""
	want_tags wl_crio "$ID_C" "$POD_C" ""
	want_tags wl_unit "" "" "web.service"
	want_tags wl_host "" "" ""
	# before: the mimics carried the container id and pod UID they chose
	want_tags wl_mimic "" "" "user@$AU.service"
	want_tags wl_mimicpod "" "" "user@$AU.service"
	kill "${WPID[wl_mimic]}" "${WPID[wl_mimicpod]}"	# two fewer spinning for the rest
	cgroup_tag=$(tags_of "${WPID[wl_docker]}" | sed -n 's/^cgroup=//p')
	check "labels: the cgroup label is the path under the mount ($cgroup_tag)" \
		[ "$cgroup_tag" = "${CGDIR[wl_docker]#"$MNT"}" ]

	# in a cgroup namespace of its own (as in a DaemonSet's pod) the paths
	# are still the machine's: its tree is read through /proc/1/root
	unshare -C "$BPFPROF" -d 1 -o "$T/labels_ns.pb.gz" 2>/dev/null
	ns_tag=$(tags_in "$T/labels_ns.pb.gz" "${WPID[wl_k8s]}" | sed -n 's/^cgroup=//p')
	check "labels: in a cgroup namespace of its own, the cgroup is the machine's path ($ns_tag)" \
		[ "$ns_tag" = "${CGDIR[wl_k8s]#"$MNT"}" ]

	named_run "$T/by_container.json" -d 1.5 --group-by container -o "$T/by_container.folded"
	roots_of() {	# the roots wl's lines have, one per line
		awk -v w="$2" '{ split($0, f, ";"); if (f[2] == w) print f[1] }' "$1" | sort -u
	}
	check "--group-by container: wl_docker's stacks under container:$ID_A only" \
		[ "$(roots_of "$T/by_container.folded" wl_docker)" = "container:$ID_A" ]
	check "--group-by container: wl_k8s's under container:$ID_B only" \
		[ "$(roots_of "$T/by_container.folded" wl_k8s)" = "container:$ID_B" ]
	check "--group-by container: wl_host's (in $LB/plain) under container:none" \
		[ "$(roots_of "$T/by_container.folded" wl_host)" = "container:none" ]
	check "--group-by container: nothing else under container:$ID_A" \
		[ "$(awk -F';' -v r="container:$ID_A" '$1 == r { print $2 }' "$T/by_container.folded" | sort -u)" = wl_docker ]
	named_run "$T/by_unit.json" -d 1.5 --group-by unit -o "$T/by_unit.html"
	check "--group-by unit: the page has the unit as a root frame" grep -q 'unit:web.service' "$T/by_unit.html"

	# which labels: --labels, and fleet mode's default (no series per thread)
	keys_of() {
		go tool pprof -tags "$1" 2>/dev/null | sed -nE 's/^ ([a-z]+): Total.*/\1/p' | sort | tr '\n' ' '
	}
	named_run "$T/some.json" -d 1 --labels pid,container -o "$T/some.pb.gz"
	check "--labels pid,container: the samples carry those ($(keys_of "$T/some.pb.gz"))" \
		[ "$(keys_of "$T/some.pb.gz")" = "container pid " ]
	mkdir -p "$T/lfleet"
	# the keys of all intervals: which workload one interval sampled is luck
	"$BPFPROF" -F 99 --interval 1 -d 2.5 --output-dir "$T/lfleet" --format pprof 2>/dev/null
	fleet_keys=$(for f in "$T"/lfleet/*.pb.gz; do keys_of "$f" | tr ' ' '\n'; done | grep . | sort -u | tr '\n' ' ')
	check "fleet mode: samples carry comm, container, pod, unit, no pid or tid ($fleet_keys)" \
		[ "$fleet_keys" = "comm container pod unit " ]

	# a JS decoder reads the same: npm's pprof-format (make deps fetches it)
	js_read() {
		node -e '
			const { Profile } = require("pprof-format");
			const zlib = require("zlib"), fs = require("fs");
			const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[1])));
			const st = p.stringTable.strings, keys = new Set();
			const fn = new Map(p.function.map(f => [Number(f.id), st[Number(f.name)]]));
			const loc = new Map(p.location.map(l => [Number(l.id), l]));
			let total = 0, hot = 0;
			for (const s of p.sample) {
				total += Number(s.value[0]);
				for (const l of s.label) keys.add(st[Number(l.key)]);
				if (s.locationId.some(id => (loc.get(Number(id)).line || [])
					.some(ln => fn.get(Number(ln.functionId)) === "hot_leaf")))
					hot += Number(s.value[0]);
			}
			console.log(total, hot, [...keys].sort().join(" ") + " ");' "$1"
	}
	read -r js_total js_hot js_keys <<<"$(js_read "$T/labels.pb.gz" 2>"$T/js.err")"
	run_total=$(stat_of "$T/labels.json" .samples)
	check "pprof-format (npm) reads the labelled pprof: $js_total samples (the run's: $run_total), $js_hot in hot_leaf, keys $js_keys$(head -c 200 "$T/js.err")" \
		all [ "${js_total:-0}" -gt 0 ] -- [ "$js_total" = "$run_total" ] -- [ "${js_hot:-0}" -gt 0 ] -- \
		    [ "$js_keys " = "$(keys_of "$T/labels.pb.gz")" ]
	expect_error "--labels with a word it does not know" 2 "invalid --labels 'pid,image'" \
		"$BPFPROF" --labels pid,image -d 1

	# four cgroups of workloads and the machine's own: two kept, the rest counted
	"$BPFPROF" -d 1.5 --max-cgroups 2 --stats "$T/cap.json" -o "$T/cap.pb.gz" 2>"$T/cap.err"
	n=$(tags_in "$T/cap.pb.gz" | grep -c '^cgroup=')
	check "--max-cgroups 2: at most 2 cgroups labelled ($n), the rest counted ($(stat_of "$T/cap.json" .labels.samples_past_max_cgroups) samples)" \
		all [ "$n" -le 2 ] -- stat_true "$T/cap.json" '.labels.cgroups == 2 and .labels.samples_past_max_cgroups > 0'
	check "--max-cgroups: the summary says to raise it" grep -q 'past --max-cgroups carry no cgroup labels: raise it' "$T/cap.err"
	expect_error "--group-by a word it does not know" 2 "invalid --group-by 'image'" "$BPFPROF" --group-by image -d 1
	expect_error "--max-cgroups 0" 2 "invalid --max-cgroups '0'" "$BPFPROF" --max-cgroups 0 -d 1
	labels_cleanup

	# a churn of 500 cgroups, each a short busy process: the profile keeps
	# --max-cgroups of them, counts the samples of the rest, names what it can
	mkdir -p "$LB/churn"
	churn() {
		local i
		for i in $(seq 500); do
			mkdir "$LB/churn/c$i" || return
			(echo "$BASHPID" >"$LB/churn/c$i/cgroup.procs" &&
				exec sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done') &
			[ $((i % 2)) = 0 ] && wait
		done
		wait
	}
	"$BPFPROF" --max-cgroups 100 --stats "$T/churn.json" -o "$T/churn.pb.gz" -- bash -c "$(declare -f churn); LB=$LB churn" 2>"$T/churn.err"
	n=$(tags_in "$T/churn.pb.gz" | grep -c '^cgroup=')
	check "churn of 500 cgroups, --max-cgroups 100: $(stat_of "$T/churn.json" .labels.cgroups) kept ($n named in the pprof), $(stat_of "$T/churn.json" .labels.samples_past_max_cgroups) samples of the rest counted" \
		all [ "$n" -le 100 ] -- stat_true "$T/churn.json" '.labels.cgroups == 100 and .labels.samples_past_max_cgroups > 0'
	find "$LB" -depth -type d -exec rmdir {} + 2>/dev/null
	[ -d "$LB" ] && fail "labels: test cgroups left behind under $LB"
fi

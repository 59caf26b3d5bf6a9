# bash completion for bpfprof: options (from --help), event names (from
# --list, as this machine can open them), pids for -p, files for -o, the
# subcommands (top and the views) first, FIFOs after --control fifo:.
_bpfprof()
{
	local cur prev words cword
	_init_completion || return
	case $prev in
	-e | --event)
		local evs pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		evs=$("$1" --list 2>/dev/null | awk '/^[ \t]+[a-z]/ { print $1 }')
		COMPREPLY=($(compgen -P "$pre" -W "$evs" -- "${cur##*,}"))
		return ;;
	-p | --pid)
		_pids
		return ;;
	-t | --tid)
		return ;;
	-o | --output | --btf | --push-auth-file | --stats)
		_filedir
		return ;;
	--output-dir | --spool-dir | --cgroup)
		_filedir -d
		return ;;
	--format)
		COMPREPLY=($(compgen -W "folded pprof both html svg otlp" -- "$cur"))
		return ;;
	--group-by)
		COMPREPLY=($(compgen -W "container pod unit cgroup pid none" -- "$cur"))
		return ;;
	--labels)	# a comma-separated list
		local pre=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$pre" -W "pid tid comm cgroup container pod unit all none" -- "${cur##*,}"))
		return ;;
	--control)	# fifo:CTL[,ACK]
		local pre=fifo: rest=${cur#fifo:}
		if [[ $rest == *,* ]]; then
			pre=fifo:${rest%%,*},
			rest=${rest#*,}
		fi
		COMPREPLY=($(compgen -P "$pre" -f -- "$rest"))
		return ;;
	--call-graph)
		COMPREPLY=($(compgen -W "auto fp dwarf" -- "$cur"))
		return ;;
	--otlp)		# a URL, or env: the OTel exporters' variables
		COMPREPLY=($(compgen -W "env" -- "$cur"))
		return ;;
	-F | --freq | -d | --duration | -c | --count | --interval | --kill-after | --max-stacks | \
	--max-files | --max-bytes | --min-block | --unwind-rows | --spool-max | --push | --app | --comm | \
	--debuginfod-timeout | --dwarf-mem | --jit-map-mem | --max-cgroups)
		return ;;
	esac
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done
	if [[ $cword -eq 1 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "top report flamegraph diff" -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$(_parse_help "$1")' -- "$cur"))
	fi
} &&
	complete -F _bpfprof bpfprof

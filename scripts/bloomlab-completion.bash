# bash completion for bloomlab (installed as
# $(datadir)/bash-completion/completions/bloomlab by `make install`).
#
# Every name comes from the binary itself, so the completion cannot fall out
# of step: commands from `bloomlab --help`, a command's flags from its own
# --help, and layouts, hashes, schemes, key sets and sizing rules from
# `bloomlab list`.

# The names of one section of `bloomlab list` (the line starting with $2).
_bloomlab_listed()
{
    "$1" list 2>/dev/null | awk -v section="$2" '
        /^[^ ]/ { inside = index($0, section) == 1; next }
        inside && /^  [^ ]/ { print $1 }'
}

_bloomlab()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        local commands
        commands=$("$bin" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}
    case "$prev" in
        --filter) COMPREPLY=($(compgen -W "$(_bloomlab_listed "$bin" filters)" -- "$cur")); return ;;
        --hash) COMPREPLY=($(compgen -W "$(_bloomlab_listed "$bin" hashes)" -- "$cur")); return ;;
        --scheme) COMPREPLY=($(compgen -W "$(_bloomlab_listed "$bin" schemes)" -- "$cur")); return ;;
        --keys) COMPREPLY=($(compgen -W "$(_bloomlab_listed "$bin" keys)" -- "$cur")); return ;;
        --sizing) COMPREPLY=($(compgen -W "$(_bloomlab_listed "$bin" sizing)" -- "$cur")); return ;;
        --scale) COMPREPLY=($(compgen -W "quick full" -- "$cur")); return ;;
        --seeds) COMPREPLY=($(compgen -W "paired independent" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text csv json" -- "$cur")); return ;;
        -o | --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ "$cur" == -* ]]; then
        local flags
        flags=$("$bin" "$command" --help 2>/dev/null | grep -o -- '--\?-[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
    elif [ "$command" = run ]; then
        COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _bloomlab bloomlab

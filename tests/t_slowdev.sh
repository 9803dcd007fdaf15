#!/bin/sh
# t_slowdev: the tests' slow device (tests/tools/slowfs under a loop
# device, tests/lib.sh's slow_loop): a request told to be late takes as
# long as told while the others complete, only the requests named are
# delayed, and the machine is left as found. The holes, comparison and
# flight recorder tests build their slow requests on it.
. "$(dirname "$0")/lib.sh"
slow_loop 64M || { skip "slow device: $LOOP_WHY"; finish; exit $?; }

# one request of the 4 KiB at 1 MiB answers 2 s late; 100 others meanwhile
slow_delay 2000 1048576 4096 1
t0=$(date +%s%N)
dd if="$SLOW_LOOP" of=/dev/null bs=4k skip=256 count=1 iflag=direct \
	2> /dev/null &
slow=$!
sleep 0.2
dd if="$SLOW_LOOP" of=/dev/null bs=4k skip=1000 count=100 iflag=direct \
	2> /dev/null
if kill -0 "$slow" 2> /dev/null; then
	pass "100 reads elsewhere complete while the delayed one is out"
else
	fail "100 reads elsewhere complete while the delayed one is out"
fi
wait "$slow"
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$ms" -ge 2000 ]; then pass "the delayed read took 2 s or more ($ms ms)"
else fail "the delayed read took 2 s or more" "$ms ms"; fi
if grep -qx "delayed 1" "$SLOW_CTL"; then pass "exactly one request delayed"
else fail "exactly one request delayed" "$(tail -n 1 "$SLOW_CTL")"; fi

# the rule was for one request: the same range again is fast
slow_delay 0
t0=$(date +%s%N)
dd if="$SLOW_LOOP" of=/dev/null bs=4k skip=256 count=1 iflag=direct 2> /dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$ms" -lt 1500 ]; then pass "cleared: the same range answers at once ($ms ms)"
else fail "cleared: the same range answers at once" "$ms ms"; fi

# writes through the device reach the backing file
printf 'slowfs-check' | dd of="$SLOW_LOOP" bs=512 seek=4 conv=sync oflag=direct \
	2> /dev/null
check "a write reaches the backing file" \
	sh -c "dd if='$SLOW_MNT/disk' bs=512 skip=4 count=1 2>/dev/null | grep -q slowfs-check"
finish

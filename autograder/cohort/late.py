"""Late submissions: each student's own deadline (``course_config.DEADLINES`` moved by the
roster's extension) and the course's late policy (``course_config.LATE_POLICY``), turned into a
penalty in points and the final grade.

A policy is a dict with only these keys (any other is refused, as is a value out of range):

- ``grace_minutes`` (>= 0, default 0): a submission at most this late costs nothing;
- ``per_day`` or ``per_hour`` (a fraction from 0 to 1): each started day (hour) after the deadline
  costs this fraction of the assignment's maximum;
- ``cap`` (0 to 1, default 1): the most that ``per_day``/``per_hour`` takes, as a fraction of the maximum;
- ``no_credit_after`` (a date and time, as in DEADLINES): a submission after it gets 0; a
  student's extension moves it by as much as it moves her deadline.

``LATE_POLICY`` is one policy for every assignment, or a dict of assignment id -> policy (``"*"``:
the others). The penalty is computed from the submission time; where none is known, the LMS's own
late flag is shown but costs nothing. The final grade is the total less the penalty, never below 0.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import zoneinfo

import course_config
from autograder.cohort.record import Record

POLICY_KEYS = ("grace_minutes", "per_day", "per_hour", "cap", "no_credit_after")
WHEN = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{2}:\d{2}(?::\d{2})?)"
                  r"(?:\s*(?P<zone>Z|UTC|[+-]\d{2}:?\d{2}|[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}))?")
DAYS = re.compile(r"\d{1,3}(?:\.\d+)?")
LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "gradescope": "Gradescope"}


class PolicyError(ValueError):
    """course_config.LATE_POLICY is not a policy this module understands."""


def parse_when(text: str) -> dt.datetime:
    """``YYYY-MM-DD HH:MM[:SS] [zone]`` (an IANA zone name, ``+0200``, ``Z`` or ``UTC``; none means
    UTC) as a naive UTC datetime; ValueError for anything else (a date without a time included)."""
    m = WHEN.fullmatch(str(text).strip())
    if not m:
        raise ValueError(f"{text!r} is not a date and time (YYYY-MM-DD HH:MM[:SS] [zone])")
    try:
        at = dt.datetime.fromisoformat(f"{m['date']} {m['time']}")
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a date and time: {exc}") from None
    zone = m["zone"]
    if zone and zone not in ("Z", "UTC"):
        if zone[0] in "+-":
            digits = zone[1:].replace(":", "")
            offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            at = at.replace(tzinfo=dt.timezone(offset if zone[0] == "+" else -offset))
        else:
            try:
                at = at.replace(tzinfo=zoneinfo.ZoneInfo(zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"{zone!r} is not a time zone (an IANA name like Europe/Berlin, or +0200)") from None
    if at.tzinfo is not None:
        at = at.astimezone(dt.UTC).replace(tzinfo=None)
    return at


def deadline_zone(assignment: str) -> tuple[dt.tzinfo, str]:
    """The time zone an assignment's deadline is written in (``course_config.DEADLINES``) and its
    name (``Europe/Berlin``, ``+02:00``); UTC where the deadline names none, or there is none."""
    m = WHEN.fullmatch(str((getattr(course_config, "DEADLINES", {}) or {}).get(assignment) or "").strip())
    zone = m["zone"] if m else None
    if not zone or zone in ("Z", "UTC"):
        return dt.UTC, "UTC"
    if zone[0] in "+-":
        digits = zone[1:].replace(":", "")
        offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return dt.timezone(offset if zone[0] == "+" else -offset), f"{zone[0]}{digits[:2]}:{digits[2:]}"
    try:
        return zoneinfo.ZoneInfo(zone), zone
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return dt.UTC, "UTC"


def local_time(when, assignment: str) -> str:
    """A time (a naive UTC datetime, or ISO text ``2026-10-15T22:05:01Z``) in the zone of the
    assignment's deadline, with the zone's name: ``2026-10-16 00:05:01 Europe/Berlin``. Text that
    is not such a time is returned as it is."""
    if not isinstance(when, dt.datetime):
        try:
            when = dt.datetime.strptime(str(when or ""), "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            return str(when or "")
    zone, name = deadline_zone(assignment)
    at = when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when
    return f"{at.astimezone(zone):%Y-%m-%d %H:%M:%S} {name}"


def parse_extension(text: str):
    """A roster's extension: '' (none), a number of days (``2``, ``1.5``) as a timedelta, or a date
    and time (``parse_when``) as a naive UTC datetime. ValueError for anything else."""
    text = str(text or "").strip()
    if not text:
        return None
    if DAYS.fullmatch(text):
        return dt.timedelta(days=float(text))
    if not WHEN.fullmatch(text):
        raise ValueError(f"the extension {text!r} is neither a number of days (2, 1.5) nor a date and time "
                         "(YYYY-MM-DD HH:MM[:SS] [zone])")
    try:
        return parse_when(text)
    except ValueError as exc:
        raise ValueError(f"the extension: {exc}") from None


def personal_deadline(deadline, extension):
    """The deadline (naive UTC) moved by an extension (roster text, timedelta or datetime); None
    without a deadline. A date extension replaces the deadline only where it is later."""
    if deadline is None:
        return None
    if isinstance(extension, str) or extension is None:
        extension = parse_extension(extension or "")
    if isinstance(extension, dt.timedelta):
        return deadline + extension
    if isinstance(extension, dt.datetime):
        return max(deadline, extension)
    return deadline


def _fraction(policy: dict, key: str, where: str) -> float | None:
    if key not in policy:
        return None
    value = policy[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise PolicyError(f"{where}: {key} must be a fraction from 0 to 1, not {value!r}")
    return float(value)


def check_policy(policy, where: str = "course_config.LATE_POLICY") -> dict:
    """A validated copy of one policy ({} for none): only POLICY_KEYS, each in range."""
    if not policy:
        return {}
    if not isinstance(policy, dict):
        raise PolicyError(f"{where} must be a dict, not {type(policy).__name__}")
    unknown = sorted(str(k) for k in policy if k not in POLICY_KEYS)
    if unknown:
        raise PolicyError(f"{where}: unknown key(s) {', '.join(unknown)}; a policy has only {', '.join(POLICY_KEYS)}")
    if "per_day" in policy and "per_hour" in policy:
        raise PolicyError(f"{where}: per_day or per_hour, not both")
    out: dict = {}
    grace = policy.get("grace_minutes", 0)
    if isinstance(grace, bool) or not isinstance(grace, (int, float)) or not 0 <= grace < math.inf:
        raise PolicyError(f"{where}: grace_minutes must be a number of minutes >= 0, not {grace!r}")
    out["grace_minutes"] = float(grace)
    for key in ("per_day", "per_hour", "cap"):
        value = _fraction(policy, key, where)
        if value is not None:
            out[key] = value
    if "no_credit_after" in policy:
        try:
            out["no_credit_after"] = parse_when(policy["no_credit_after"])
        except ValueError as exc:
            raise PolicyError(f"{where}: no_credit_after: {exc}") from None
    return out


def policy_for(assignment: str) -> dict:
    """The validated policy of an assignment from course_config.LATE_POLICY ({} for none)."""
    policy = getattr(course_config, "LATE_POLICY", {}) or {}
    if not isinstance(policy, dict):
        raise PolicyError(f"course_config.LATE_POLICY must be a dict, not {type(policy).__name__}")
    if set(policy) & set(POLICY_KEYS):  # one policy (with a policy's key, any unknown key is a mistake)
        return check_policy(policy)
    for key, value in policy.items():  # by assignment: every value a policy
        if not isinstance(value, dict):
            raise PolicyError(f"course_config.LATE_POLICY[{key!r}] must be a policy (a dict); a policy has only "
                              f"{', '.join(POLICY_KEYS)}")
    name = assignment if assignment in policy else "*"
    return check_policy(policy.get(name, {}), f"course_config.LATE_POLICY[{name!r}]")


def _clock(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    clock = f"{rest // 3600}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days} d {clock}" if days else clock


def _g(x: float) -> str:
    return f"{x:g}"


def assess(rec: Record, deadline, policy: dict, total: float, total_max: float) -> dict:
    """How late a record is and what it costs: ``late`` ('yes'/'no'/''), ``by`` (H:MM:SS),
    ``lms_late`` ('yes'/'no'/'': the LMS's own flag), ``deadline`` (hers, naive UTC or None),
    ``penalty`` (points taken), ``final`` (total less the penalty, >= 0) and ``why`` (one sentence
    for the pages, '' where nothing is to be said: a penalty and its reason, a submission late
    within the grace period and not penalised, an LMS's flag that cost nothing; times in the
    deadline's zone, ``local_time``)."""
    mine = personal_deadline(deadline, rec.extension)
    flag = rec.lms_late
    lms = LMS_NAMES.get(str(rec.lms or ""), "the LMS")
    out = {"late": "", "by": "", "lms_late": "" if flag is None else ("yes" if flag else "no"),
           "deadline": mine, "penalty": 0.0, "final": max(0.0, float(total)), "why": ""}
    try:
        at = dt.datetime.strptime(str(rec.submitted_at or ""), "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        at = None
    if at is None:
        if flag and policy:
            out["why"] = (f"{lms} marked this submission late; with no submission time known, "
                          "no late penalty was computed.")
        return out
    seconds = 0
    if mine is not None:
        seconds = max(0, int((at - mine).total_seconds()))
        out["late"] = "yes" if at > mine else "no"
        out["by"] = _clock(seconds) if at > mine else ""
    penalty, why = 0.0, ""
    cutoff = policy.get("no_credit_after")
    if cutoff is not None:
        if deadline is not None and mine is not None and mine > deadline:
            cutoff = cutoff + (mine - deadline)
        if at > cutoff:
            penalty = float(total)
            why = f"submitted after {local_time(cutoff, str(rec.assignment))}, when no credit is given"
    rate = policy.get("per_day", policy.get("per_hour"))
    grace = policy.get("grace_minutes", 0)
    if not why and 0 < seconds <= grace * 60:  # late, but forgiven: say so, not only "late by"
        out["why"] = (f"Submitted {_clock(seconds)} after the deadline, within the {_g(grace)}-minute grace "
                      "period: not penalised.")
    if not why and rate and seconds > grace * 60:
        unit, length = ("day", 86400) if "per_day" in policy else ("hour", 3600)
        started = math.ceil(seconds / length)
        fraction = min(policy.get("cap", 1.0), started * rate)
        penalty = round(fraction * float(total_max), 6)
        why = (f"late by {_clock(seconds)}: {started} started {unit}{'s' if started != 1 else ''} × {rate:.0%} of "
               f"{_g(total_max)}" + (f", at most {policy['cap']:.0%}" if "cap" in policy else ""))
    if penalty:
        taken = round(min(penalty, max(0.0, float(total))), 6)
        out["penalty"] = taken
        out["final"] = round(max(0.0, float(total) - taken), 6)
        out["why"] = f"Late penalty {_g(taken)} point{'s' if taken != 1 else ''} ({why})."
    return out

"""Everyday words the name rules must know: capitalised words that are not names, calendar
words, and the words around a name that say it is a person's ("written by", "my sister")."""

from __future__ import annotations

from zerda.entities._lists import words

# Capitalised at a sentence start or in a title, but not names.
COMMON = words(
    """
    I A An The This That These Those My Your Our Their His Her Its We You He She They It Me
    Us Him Them What When Where Why How Who Whom Whose Which Whatever Whoever Can Could Would
    Should Shall Will May Might Must Is Are Was Were Be Been Am Do Does Did Done Have Has Had
    Having Please Thanks Thank Hi Hello Hey Dear Yes No Not Okay OK Ok Sure Also But And Or
    Nor So If Then Now Here There Today Tomorrow Yesterday Tonight Let Let's Just Maybe
    Perhaps Still Yet Even Only Very Really Actually Anyway However Therefore Meanwhile
    Otherwise Instead Also Again Already Always Never Sometimes Often Usually Honestly
    Basically Finally First Second Third Next Last Before After During Since Until From To In
    On At For With Without About By Of As Like Unlike Between Among Over Under Into Onto Out
    Up Down Off Through Per Via Near Around Against Across Behind Beyond Inside Outside Within
    Some Any All Each Every Both Either Neither Many Much More Most Few Several Other Another
    Such Same New Old Good Great Best Better Big Small Little Long Short High Low Right Left
    Well Oh Ah Wow Sorry Excuse Welcome Cheers Regards Sincerely Note Notes See Use Try Make
    Check Add Remove Set Run Install Open Close Write Read Tell Give Show Explain Find Help
    Book Call Email Send Meet Visit Ask Remind Schedule Plan Compare Convert Calculate
    Translate Summarise Summarize Describe List Recommend Suggest Create Build Fix Update
    Delete Move Copy Start Stop Keep Take Get Go Come Look Put Turn Click Press Pick Choose
    Select Enter Type Save Load Print Return Contact Join Draft Rewrite Review Edit Format
    Chapter Section Part Step Table Figure Appendix Example Examples Summary Introduction
    Conclusion Question Questions Answer Answers Problem Solution Warning Error Errors Tip
    Tips Info Important Update Re Fwd Subject Total Yours Whatever Nothing Something Everything
    Anything Someone Everyone Anyone Nobody Everybody Somebody Here's There's It's That's
    What's Who's Where's I'm I've I'll I'd You're We're They're Don't Can't Won't Isn't
    Day Week Month Year Time Morning Afternoon Evening Night God Internet Web
    """
)

MONTHS = words(
    """
    January February March April May June July August September October November December
    Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
    """
)

WEEKDAYS = words(
    """
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mondays Tuesdays Wednesdays
    Thursdays Fridays Saturdays Sundays Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun
    """
)

# "my sister Ines", "our manager is Dana Whitfield": the name that follows is a person's.
RELATION_NOUNS = words(
    """
    friend friends colleague coworker co-worker boss manager wife husband partner girlfriend
    boyfriend fiancé fiancée son daughter brother sister mother father mom mum dad uncle aunt
    cousin nephew niece grandmother grandfather grandma grandpa granddaughter grandson
    neighbor neighbour roommate flatmate teacher tutor student doctor dentist lawyer landlord
    landlady mentor advisor adviser therapist coach author novelist writer poet physicist
    scientist mathematician philosopher historian actor actress singer composer painter
    artist founder cofounder co-founder recruiter engineer intern assistant
    """
)

# "written by X", "a novel by X": the name after `by` is a person's.
BY_WORDS = words(
    """
    written authored painted composed directed sung coined narrated illustrated translated
    invented discovered founded co-founded cofounded proposed formulated drawn sculpted
    photographed novel novels book books song songs poem poems painting paintings film films
    movie movies album albums essay essays article articles paper papers talk talks play
    plays symphony opera speech story stories lecture quote quotes anything something
    everything works work biography memoir
    """
)

# "X Y said": a capitalised pair before one of these is a person.
SPEECH_VERBS = words(
    """
    said says wrote writes told tells asked asks argued argues explained explains noted notes
    claimed claims replied replies added adds believes believed thinks thought suggested
    suggests mentioned mentions recalled recalls insisted insists admitted admits warned
    warns
    """
)

# "a woman named X", "a guy called X".
NAMED_NOUNS = words(
    "man woman guy girl boy kid person lady gentleman someone somebody friend child"
)

# Capitalised words after a name that make it a product's, not a person's: "Claude Desktop".
PRODUCT_WORDS = words(
    """
    Desktop Code App Apps Pro Plus Mini Ultra Studio Cloud Server Client Mobile Web Online
    Assistant Chat Bot Model Opus Sonnet Haiku Instant Edge Lite Air Phone Pad Watch TV
    Music Maps Drive Docs Sheets Mail Store Pay Wallet Search SDK API CLI Edition Beta
    """
)

"""More noise, written to collide with the questions' vocabulary: community threads that quote
old numbers or guess, incident reports and release notes that name error codes, blog posts on the
same topics. None of them answers a question of the corpus. Written by hand for the eval."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.noise import Noise

NOISE_MORE: list[Noise] = [
    (
        "community-ratelimit-numbers",
        "en",
        ["community", "api"],
        "Community thread: what are the real rate limit numbers?",
        "Original post: 'Our sync script keeps getting too many requests errors at night. Support told us "
        "600 a minute a while ago, is that per workspace?' Replies: 'We batch everything and never hit it.' "
        "'Could be per IP, no idea.' 'Check the docs, they changed something this year.' The thread was "
        "closed without an accepted answer.",
    ),
    (
        "incident-2026-05-e4290",
        "en",
        ["status", "api"],
        "Incident report: E-4290 errors for tokens under their limit (12 May 2026)",
        "For 40 minutes a misconfigured limiter answered 429 with E-4290 to tokens that were well under their "
        "limit. Requests were not processed and could be retried safely. We have added an alert on the "
        "share of 429 answers per cluster. No customer action is needed.",
    ),
    (
        "release-2026-06",
        "en",
        ["release-notes"],
        "Release notes: June 2026",
        "The kiosk's pairing screen now shows the code in larger digits. Offline clock-ins show a small "
        "cloud icon until they are uploaded. New API error E-4302 tells you when an idempotency key is "
        "reused. Managers can filter the timesheet approvals page by flag.",
    ),
    (
        "blog-trial-lessons",
        "en",
        ["blog", "trial"],
        "What a month-long trial taught us about onboarding",
        "Back when our trial lasted a month, most teams decided in the first four days. The rest of the "
        "trial was spent waiting for a manager to have time. This post is about what we changed in the first "
        "week of a new workspace so that the decision comes sooner.",
    ),
    (
        "blog-lost-phones",
        "en",
        ["blog", "security"],
        "Lost phones, found shifts: two-factor in the real world",
        "Two-factor authentication stops most account takeovers, and it also produces the most support "
        "tickets after the holidays, when phones are lost, dropped in pools or replaced. We asked workspace "
        "owners how they plan for it, from printed recovery codes in the safe to a second admin on call.",
    ),
    (
        "podcast-pay-codes",
        "en",
        ["podcast", "payroll"],
        "Podcast: the pay code that cost us a week",
        "In this episode a payroll manager from a cinema chain tells how a single new shift type, created for "
        "a film festival, held up the payroll export for every cinema, and why she now reviews pay codes "
        "before every season.",
    ),
    (
        "blog-per-seat-pricing",
        "en",
        ["blog", "billing"],
        "Why we charge per seat",
        "Pricing per seat means a shop with eight people pays less than a warehouse with eight hundred. It "
        "also means that hiring and leaving show up on the invoice, which some customers love and others "
        "find confusing. Here is how we think about it and what we are trying next year.",
    ),
    (
        "community-geofence-radius",
        "en",
        ["community", "clock-in"],
        "Community thread: how strict are your geofences?",
        "A café owner asks how others keep people from clocking in from the bus. Replies range from 'we turned "
        "it off' to 'the car park counts for us' and one long post about GPS in shopping centres. No "
        "recommendation was given.",
    ),
    (
        "blog-kiosk-photos",
        "en",
        ["blog", "kiosk"],
        "Photos at the kiosk: faster, not stricter",
        "We added optional photos to kiosk clock-ins after customers asked for a way to spot 'buddy "
        "punching'. This post explains how we designed the photo step to add less than a second and why we "
        "decided against any kind of face recognition ranking.",
    ),
    (
        "webinar-es-api",
        "es",
        ["webinar", "api"],
        "Seminario web: la API de Tessel en 45 minutos",
        "Un recorrido por la API: tokens, paginación, webhooks y límites de peticiones, con ejemplos en "
        "Python. Al final respondemos preguntas del público sobre errores 429 y exportaciones masivas. La "
        "grabación está disponible para los inscritos.",
    ),
    (
        "foro-es-reembolso",
        "es",
        ["community", "billing"],
        "Foro de la comunidad: ¿alguien consiguió el reembolso del plan anual?",
        "Un usuario pregunta si alguien ha recuperado el dinero de un plan anual. Las respuestas: 'Yo sí, "
        "pero fue hace dos años'. 'Creo que depende de los días'. 'Escribe a soporte'. Nadie da una cifra.",
    ),
    (
        "blog-es-horas-extra",
        "es",
        ["blog", "overtime"],
        "Horas extra: el coste que nadie planifica",
        "En hostelería las horas extra aparecen en la nómina antes que en el cuadrante. Hablamos con dos "
        "gerentes de restaurante sobre cómo anticipan las bajas, cómo reparten las coberturas y qué aprueban "
        "antes de cada fin de semana.",
    ),
]

"""Noise: pages that share the knowledge base's vocabulary (refunds, shifts, exports, errors,
kiosks, overtime) and answer none of the questions. Written by hand for the eval."""

from __future__ import annotations

# (id, lang, tags, title, text)
Noise = tuple[str, str, list[str], str, str]

NOISE: list[Noise] = [
    (
        "blog-overtime-costs",
        "en",
        ["blog"],
        "Why overtime quietly eats your margin",
        "Every restaurant owner we talk to has a story about the month overtime doubled without anyone "
        "noticing. Overtime is rarely one big decision; it is twenty small ones, a shift extended here, a "
        "cover there. In this post we look at how three of our customers spotted the pattern early and what "
        "they changed in the way they plan the week.",
    ),
    (
        "blog-refund-season",
        "en",
        ["blog"],
        "Refund season: lessons from retail returns",
        "January is refund season for retail. Stores that staff their service desks for it see shorter queues "
        "and fewer angry reviews. We asked five store managers how they plan shifts around returns, and the "
        "answers were surprisingly similar: plan by hour, not by day.",
    ),
    (
        "blog-api-story",
        "en",
        ["blog", "api"],
        "How a bakery chain built its own dashboard on our API",
        "When Crumb & Co. opened their ninth bakery, spreadsheets stopped scaling. Their one developer used "
        "the Tessel API and a weekend to build a dashboard that shows who is on shift in every shop. We talked "
        "to her about rate limits, webhooks and what she would do differently.",
    ),
    (
        "blog-geofence-privacy",
        "en",
        ["blog", "mobile"],
        "Geofences without surveillance",
        "Location checks at clock-in make some employees uneasy, and that is fair. This essay explains the "
        "difference between checking a position once at clock-in and tracking people all day, and why we "
        "only ever do the first.",
    ),
    (
        "blog-kiosk-design",
        "en",
        ["blog", "kiosk"],
        "Designing a kiosk for greasy fingers",
        "Our kiosk app is used in kitchens, warehouses and garden centres. The design team spent two weeks on "
        "site watching people clock in with gloves, wet hands and a queue behind them. Big buttons were the "
        "easy part; the PIN pad layout took eleven attempts.",
    ),
    (
        "blog-error-messages",
        "en",
        ["blog"],
        "Writing error messages people can act on",
        "An error code alone helps nobody at six in the morning. Our writing guide asks every message to say "
        "what happened, why, and what to do next, and to keep the code for support. Here is how we rewrote "
        "two hundred messages in a quarter.",
    ),
    (
        "blog-four-day-week",
        "en",
        ["blog"],
        "What we learned scheduling a four-day week",
        "Two of our customers tried a four-day week for their care staff. Scheduling was harder than expected: "
        "handovers doubled in importance and Friday coverage needed a rota of its own. The results after six "
        "months were mixed but instructive.",
    ),
    (
        "blog-payroll-errors",
        "en",
        ["blog", "payroll"],
        "The most expensive payroll mistakes",
        "Paying someone twice for the same hours is the classic, but not the most costly. Missed overtime "
        "premiums and misclassified breaks cost more over a year. A payroll consultant walks through the "
        "cases she sees most.",
    ),
    (
        "release-2026-10",
        "en",
        ["release-notes"],
        "Release notes: October 2026",
        "New: managers can leave comments on shifts. Improved: the schedule loads faster for locations with "
        "more than 200 employees. Fixed: the week picker skipped a week around daylight saving time in some "
        "time zones. Fixed: exported CSV files now include a byte-order mark for older spreadsheet programs.",
    ),
    (
        "release-2026-09",
        "en",
        ["release-notes"],
        "Release notes: September 2026",
        "New: dark mode in the mobile app. Improved: kiosk photos are compressed before upload, which helps on "
        "slow shop Wi-Fi. Fixed: a rare crash when opening a shift swap from a notification.",
    ),
    (
        "release-2026-08",
        "en",
        ["release-notes"],
        "Release notes: August 2026",
        "New: labour cost report by position. Improved: error messages in the import dialog now point at the "
        "exact cell. Fixed: some API error responses returned the wrong content type.",
    ),
    (
        "release-2026-07",
        "en",
        ["release-notes"],
        "Release notes: July 2026",
        "New: templates for recurring shifts. Improved: payroll exports show a progress bar. Fixed: overtime "
        "warnings were shown twice for split shifts.",
    ),
    (
        "webinar-scheduling-101",
        "en",
        ["events"],
        "Webinar: Scheduling 101 for new managers",
        "Join our customer success team for a one-hour introduction to building, publishing and adjusting a "
        "schedule. We will cover open shifts, swaps and how to read the warnings bar. Recordings are sent to "
        "everyone who registers.",
    ),
    (
        "webinar-payroll",
        "en",
        ["events"],
        "Webinar: closing payroll without the Friday panic",
        "A live walk-through of the end-of-period routine: approvals, exports and what to do when the numbers "
        "do not match. Bring your questions; the session is interactive.",
    ),
    (
        "case-study-hotel",
        "en",
        ["customers"],
        "Case study: a seaside hotel halves its scheduling time",
        "The Harbour View hotel used to spend a full day each week on the rota. With Tessel's templates and "
        "open shifts the front office manager now spends a morning, and housekeeping staff swap shifts "
        "between themselves without phone calls.",
    ),
    (
        "case-study-clinic",
        "en",
        ["customers"],
        "Case study: a physiotherapy clinic and its kiosk",
        "Northside Physio replaced a paper sign-in sheet with a kiosk tablet in the staff room. Timesheets "
        "are approved in minutes instead of hours, and disputes about who arrived when have all but "
        "disappeared.",
    ),
    (
        "case-study-warehouse",
        "en",
        ["customers"],
        "Case study: 400 warehouse staff on one schedule",
        "A logistics company moved three warehouses onto Tessel in a month. The hardest part was not the "
        "software but agreeing on position names across sites. Their operations lead shares the plan they "
        "used.",
    ),
    (
        "careers-support",
        "en",
        ["company"],
        "We are hiring: support specialists",
        "Our support team answers questions about shifts, payroll exports, kiosks and error codes from "
        "customers in thirty countries. We are looking for people who like solving problems and writing "
        "clearly. Spanish is a plus.",
    ),
    (
        "company-values",
        "en",
        ["company"],
        "How we work at Tessel",
        "We build for people who work shifts, so we visit them. Every engineer spends two days a year working "
        "a shift at a customer's business. We write things down, we prefer small changes, and we answer "
        "support tickets ourselves once a month.",
    ),
    (
        "glossary-shift-terms",
        "en",
        ["glossary"],
        "A short history of the word 'shift'",
        "The word shift for a working period comes from the idea of changing places with another worker. "
        "Mines and mills used it in the nineteenth century, long before anyone scheduled anything on a "
        "screen. Rota, roster and schedule have their own stories.",
    ),
    (
        "community-forum-tips",
        "en",
        ["community"],
        "Community thread: your favourite scheduling tricks",
        "We asked the community for their best tricks. Colour-coding positions came up most, followed by "
        "publishing the schedule two weeks ahead and keeping a standing list of people happy to take extra "
        "shifts.",
    ),
    (
        "community-kiosk-stand",
        "en",
        ["community"],
        "Community thread: which tablet stand do you use?",
        "Members share photos of their kiosk set-ups: wall mounts, counter stands and one tablet in a "
        "waterproof case bolted next to a dishwasher. Several recommend a stand that hides the charging "
        "cable.",
    ),
    (
        "survey-2026",
        "en",
        ["company"],
        "Results of our 2026 customer survey",
        "Thank you to the 1,200 customers who answered. Mobile clock-in, payroll exports and the shift swap "
        "flow were the most valued features; reporting and the import dialog the most criticised. We are "
        "working on both.",
    ),
    (
        "status-maintenance",
        "en",
        ["status"],
        "Planned maintenance announcements",
        "We announce planned maintenance on the status page at least 72 hours ahead. Most maintenance happens "
        "without downtime; when it does not, we schedule it at night in the affected region.",
    ),
    (
        "partner-program",
        "en",
        ["partners"],
        "The Tessel partner program",
        "Payroll bureaus and HR consultants can become Tessel partners and manage several client workspaces "
        "from one account. Partners get training, a sandbox workspace and a revenue share.",
    ),
    (
        "accessibility-statement",
        "en",
        ["company"],
        "Accessibility statement",
        "We aim for WCAG 2.2 AA in the web app and the mobile apps. Known gaps are listed here with dates for "
        "fixing them. Tell us about any barrier you meet; accessibility reports are treated as bugs.",
    ),
    (
        "newsletter-2026-11",
        "en",
        ["newsletter"],
        "Tessel newsletter, November 2026",
        "This month: a preview of holiday-season scheduling tips, a new customer story from a ski resort, "
        "and the dates of our next two webinars. Plus a reminder that the mobile app now supports dark mode.",
    ),
    (
        "roadmap-2027",
        "en",
        ["company"],
        "Looking ahead to 2027",
        "Next year we want to make the schedule smarter about demand, give employees more say over their "
        "hours, and make integrations easier to set up. Dates are not promises; we will share progress in "
        "the monthly release notes.",
    ),
    (
        "api-changelog-v1",
        "en",
        ["api"],
        "API v1 changelog (archived)",
        "The v1 API was frozen in 2024 and receives no new endpoints. This page lists its changes from 2019 to "
        "2024 for reference: pagination by page number, the old shift object without breaks, and the "
        "timesheet endpoint that returned minutes instead of hours.",
    ),
    (
        "legal-imprint",
        "en",
        ["legal"],
        "Imprint",
        "Tessel Ltd, registered in Ireland. Registered office in Dublin. Directors and company number are "
        "listed on the company register. For legal notices write to the registered office.",
    ),
    (
        "blog-es-turnos-verano",
        "es",
        ["blog"],
        "Cómo planificar los turnos de verano",
        "El verano llena las terrazas y vacía las plantillas. Hablamos con tres restaurantes que usan Tessel "
        "sobre cómo reparten las vacaciones sin quedarse cortos en agosto, y sobre el papel de los turnos "
        "abiertos cuando alguien se pone enfermo.",
    ),
    (
        "blog-es-errores-nomina",
        "es",
        ["blog"],
        "Errores frecuentes al cerrar la nómina",
        "Pagar dos veces las mismas horas es el error clásico, pero no el más caro. Una asesora laboral repasa "
        "los fallos que más ve al final de cada periodo y cómo evitarlos con una rutina sencilla.",
    ),
    (
        "novedades-2026-10-es",
        "es",
        ["novedades"],
        "Novedades de octubre de 2026",
        "Nuevo: los responsables pueden dejar comentarios en los turnos. Mejorado: el horario carga más rápido "
        "en locales grandes. Corregido: el selector de semanas saltaba una semana con el cambio de hora.",
    ),
    (
        "caso-exito-panaderia-es",
        "es",
        ["clientes"],
        "Caso de éxito: una cadena de panaderías",
        "Con doce tiendas y más de cien empleados, la cadena dedicaba un día entero a cuadrar horarios. Ahora "
        "usa plantillas, quioscos para fichar y la exportación a nómina, y el cierre de mes les lleva una "
        "mañana.",
    ),
    (
        "webinar-es-quioscos",
        "es",
        ["eventos"],
        "Seminario web: fichar con quiosco",
        "Una sesión en directo sobre cómo elegir la tableta, dónde colocarla y cómo formar a la plantilla para "
        "fichar con PIN. Enviaremos la grabación a todas las personas inscritas.",
    ),
    (
        "empleo-soporte-es",
        "es",
        ["empresa"],
        "Trabaja con nosotros: soporte en español",
        "Buscamos personas que disfruten resolviendo problemas de turnos, fichajes y exportaciones de nómina "
        "para clientes de España y Latinoamérica. Trabajo en remoto y formación desde el primer día.",
    ),
]

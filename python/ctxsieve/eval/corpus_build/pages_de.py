"""German pages of the Tessel help centre: translations of two policies (each with its superseded
version), error articles, how-tos and noise. Like the Portuguese pages they say the same as their
English originals; a German question is labelled with the German page where there is one."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.errors import ErrorEntry
from ctxsieve.eval.corpus_build.howtos import HowTo
from ctxsieve.eval.corpus_build.noise import Noise
from ctxsieve.eval.corpus_build.policies import Policy

POLICIES_DE: list[Policy] = [
    (
        "pol-erstattung-2024-de",
        "de",
        "superseded",
        "2024-02-01",
        "pol-erstattung-2025-de",
        ["billing", "refunds"],
        "Erstattungsrichtlinie (2024)",
        "Jahrespläne von Tessel werden voll erstattet, wenn Sie innerhalb von 14 Tagen nach dem Kauf darum "
        "bitten. Monatspläne werden nicht erstattet: Nach der Kündigung bleibt der Arbeitsbereich bis zum Ende "
        "des bezahlten Monats aktiv.",
    ),
    (
        "pol-erstattung-2025-de",
        "de",
        "current",
        "2025-09-15",
        None,
        ["billing", "refunds"],
        "Erstattungsrichtlinie",
        "Diese Richtlinie ersetzt ab dem 15. September 2025 die Erstattungsrichtlinie von 2024.\n\n"
        "Jahrespläne: volle Erstattung innerhalb von 30 Tagen nach dem Kauf. Danach können Business- und "
        "Enterprise-Kunden die anteilige Erstattung der noch nicht begonnenen vollen Monate verlangen; "
        "Starter-Jahrespläne werden nach dem 30. Tag nicht erstattet.\n\n"
        "Monatspläne: Die erste Abbuchung eines neuen Abonnements kann innerhalb von 7 Tagen erstattet "
        "werden. Spätere Monatsbeträge werden nicht erstattet, aber eine Kündigung verhindert die nächste "
        "Abbuchung.",
    ),
    (
        "pol-ueberstunden-2024-de",
        "de",
        "superseded",
        "2024-04-01",
        "pol-ueberstunden-2025-de",
        ["scheduling", "overtime"],
        "Genehmigung von Überstunden (2024)",
        "Bis zu 2 Überstunden pro Woche werden automatisch genehmigt. Alles darüber muss eine Führungskraft "
        "in der Woche genehmigen, in der es gearbeitet wurde.",
    ),
    (
        "pol-ueberstunden-2025-de",
        "de",
        "current",
        "2025-05-01",
        None,
        ["scheduling", "overtime"],
        "Genehmigung von Überstunden",
        "Überstunden müssen von einer Führungskraft genehmigt werden, bevor die Schicht beginnt, die sie "
        "verursacht. Tessel warnt beim Planen, wenn eine Schicht jemanden über die Wochenstunden bringt.\n\n"
        "Notfall-Überstunden (jemand springt für einen unerwarteten Ausfall ein) dürfen ohne Genehmigung "
        "gearbeitet werden, müssen aber innerhalb von 24 Stunden markiert werden. Nicht markierte "
        "Überstunden werden bezahlt, erscheinen aber im Compliance-Bericht.",
    ),
]

ERRORS_DE: list[ErrorEntry] = [
    (
        "E-6001",
        "kiosk",
        "Kiosk nicht gekoppelt",
        "Das Tablet zeigt einen Kopplungscode statt des Stempel-Tastenfelds.",
        "Ein Admin hat die Kopplung aufgehoben, der Standort des Kiosks wurde gelöscht oder die App-Daten "
        "wurden gelöscht.",
        "Ein Admin gibt den Code unter Einstellungen > Kiosks > Kiosk koppeln ein und wählt den Standort.",
    ),
    (
        "E-7042",
        "payroll",
        "Mitarbeiter ohne Lohn-ID",
        "Der Export listet Mitarbeiter 'ohne Lohn-ID' auf und bricht ab.",
        "Jeder exportierte Mitarbeiter braucht die Kennung, die Ihr Lohnabrechnungsanbieter für ihn verwendet.",
        "Tragen Sie im Profil jedes aufgeführten Mitarbeiters die Lohn-ID ein oder importieren Sie die IDs "
        "gesammelt aus einer CSV-Datei.",
    ),
    (
        "E-5203",
        "clock-in",
        "Offline-Stempelungen konnten nicht synchronisiert werden",
        "Ein Hinweis meldet, dass einige offline erfasste Stempelungen nicht hochgeladen werden konnten.",
        "Offline gespeicherte Stempelungen werden 72 Stunden aufbewahrt. Bleibt das Handy länger offline oder "
        "wird die App neu installiert, gehen sie verloren.",
        "Verbinden Sie das Handy mit dem Internet und öffnen Sie die App, damit die Warteschlange hochlädt. "
        "Fehlende Stempelungen trägt die Führungskraft von Hand im Stundenzettel nach.",
    ),
]

HOWTOS_DE: list[HowTo] = [
    (
        "howto-schichttausch-de",
        "de",
        ["shifts", "swaps"],
        "Schichten zwischen Mitarbeitern tauschen",
        "Die Mitarbeiterin öffnet die Schicht in der App, tippt auf Tauschen und wählt eine Kollegin oder "
        "bietet die Schicht allen mit derselben Position an. Nimmt jemand an, genehmigt die Führungskraft "
        "den Tausch (oder er wird automatisch genehmigt, wenn der Standort das erlaubt). Tausche, die "
        "Überstunden erzeugen würden, braucht immer die Führungskraft.",
    ),
    (
        "howto-urlaub-de",
        "de",
        ["leave"],
        "Urlaub oder freie Tage beantragen",
        "Tippen Sie auf Abwesenheit > Neuer Antrag, wählen Sie die Tage und die Art der Abwesenheit und fügen "
        "Sie bei Bedarf eine Notiz hinzu. Die Führungskraft erhält den Antrag sofort. Genehmigte "
        "Abwesenheiten werden im Dienstplan angezeigt; bereits geplante Schichten werden zu offenen Schichten.",
    ),
    (
        "howto-dienstplan-de",
        "de",
        ["scheduling"],
        "Einen Dienstplan veröffentlichen",
        "Entwürfe sind für Mitarbeiter unsichtbar, bis Sie sie veröffentlichen. Öffnen Sie Dienstplan, wählen "
        "Sie die Woche, prüfen Sie die Warnleiste (Überschneidungen, fehlende Pausen, Überstunden) und klicken "
        "Sie auf Veröffentlichen. Mitarbeiter erhalten eine Push-Nachricht und eine E-Mail mit ihren Schichten.",
    ),
]

NOISE_DE: list[Noise] = [
    (
        "blog-de-dienstplan-sommer",
        "de",
        ["blog"],
        "Dienstplanung im Biergarten-Sommer",
        "Wenn die Sonne scheint, braucht ein Biergarten doppelt so viele Leute, und wenn es regnet, die "
        "Hälfte. Drei Wirte erzählen, wie sie mit offenen Schichten, Schichttausch und kurzfristigen "
        "Überstunden durch den Sommer kommen, ohne dass das Team ausbrennt.",
    ),
    (
        "karriere-de-support",
        "de",
        ["careers"],
        "Wir suchen: Support auf Deutsch (Berlin oder remote)",
        "Du erklärst gern, warum ein Kiosk einen Kopplungscode zeigt oder eine Lohnabrechnung mit einer "
        "Fehlermeldung abbricht? Unser Support-Team sucht Verstärkung für Kunden in Deutschland, Österreich "
        "und der Schweiz. Schichtarbeit ist nicht nötig, Humor schon.",
    ),
]

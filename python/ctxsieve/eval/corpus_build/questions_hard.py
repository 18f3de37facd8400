"""The harder sessions: questions in the user's words (symptoms, not error codes; "rota" and
"punch in", not "schedule" and "clock-in"), in Portuguese and German, and mixing a language with
English. Each question carries its own language, because a code-switching question is not in its
session's language. Labels follow the rule of ``questions.py``; a question in a language that
has its own page is answered by that page, one in a language without one by the English page.
Written by hand for the eval."""

from __future__ import annotations

# (type, question, relevant, distractors, reference answer, lang)
QL = tuple[str, str, list[str], list[str], str, str]
# (session id, topic, questions in turn order)
SessionL = tuple[str, str, list[QL]]

PT_DE_SESSIONS: list[SessionL] = [
    (
        "s11",
        "Uma gerente de restaurante em São Paulo",
        [
            (
                "paraphrase",
                "Meus funcionários não conseguem bater o ponto pelo celular: o app diz que eles não estão no "
                "trabalho, mas estão na cozinha.",
                ["err-e5110-pt"],
                ["err-e5114"],
                "O celular informa uma posição fora da cerca virtual ou com precisão pior que 150 metros, comum "
                "em ambientes fechados. Chegue perto de uma janela e permita a localização precisa; o gerente "
                "pode aumentar o raio ou aprovar o registro.",
                "pt",
            ),
            (
                "exact_id",
                "Um garçom errou a senha várias vezes e agora aparece E-6021. Quanto tempo ele tem que esperar?",
                ["err-e6021-pt"],
                [],
                "15 minutos: cinco PINs errados bloqueiam o PIN em todos os quiosques. O gerente também pode "
                "redefinir o PIN no perfil.",
                "pt",
            ),
            (
                "changed_policy",
                "Assinamos o plano anual há três semanas. Ainda dá para pedir o dinheiro de volta?",
                ["pol-reembolsos-2025-pt"],
                ["pol-reembolsos-2024-pt", "faq-privacidade-pt"],
                "Sim: planos anuais têm reembolso integral em até 30 dias após a compra.",
                "pt",
            ),
            (
                "paraphrase",
                "Como eu passo meu turno de sábado para uma colega?",
                ["howto-trocar-turno-pt"],
                [],
                "Abra o turno no aplicativo, toque em Trocar e escolha a colega; o gerente aprova a troca, a "
                "menos que o local aprove automaticamente.",
                "pt",
            ),
            (
                "changed_policy",
                "Se a gente apagar a conta do Tessel, por quanto tempo vocês ficam com os nossos dados?",
                ["pol-retencao-2025-pt"],
                ["pol-retencao-2024-pt", "faq-privacidade-pt"],
                "30 dias, durante os quais dá para restaurar; no 31º dia os dados são apagados e os backups "
                "expiram em 35 dias, no máximo 66 dias ao todo. Registros de auditoria ficam 7 anos.",
                "pt",
            ),
            (
                "paraphrase",
                "O relógio do tablet da entrada está uns minutos adiantado e os registros saem com a hora errada.",
                ["err-e6050"],
                ["err-e6001-pt"],
                "É o erro E-6050: o relógio do tablet difere do Tessel em mais de 2 minutos. Ative a hora da "
                "rede no tablet; os registros marcados ficam com um aviso para o gerente conferir.",
                "pt",
            ),
            (
                "multi_doc",
                "Contratei o plano mensal há cinco dias e quero cancelar: recebo o dinheiro de volta? E o que "
                "acontece com o espaço de trabalho?",
                ["pol-reembolsos-2025-pt", "howto-cancelar-pt"],
                ["pol-reembolsos-2024-pt"],
                "A primeira cobrança pode ser reembolsada em até 7 dias. Cancele em Cobrança > Plano; o espaço "
                "fica no plano pago até o fim do período, depois somente leitura, sem apagar dados.",
                "pt",
            ),
            (
                "exact_id",
                "A exportação da folha para com o erro E-7003. O que está faltando?",
                ["err-e7003-pt"],
                ["err-e7031"],
                "Códigos de pagamento para alguns tipos de turno. Associe-os em Configurações > Folha de "
                "pagamento > Códigos de pagamento e exporte de novo.",
                "pt",
            ),
            (
                "unanswerable",
                "O Tessel emite nota fiscal eletrônica para clientes no Brasil?",
                [],
                ["err-e2119"],
                "A base de conhecimento não diz; só fala da validação do número de IVA europeu.",
                "pt",
            ),
            (
                "paraphrase",
                "O nosso webhook ficou disabled depois de um fim de semana com o servidor fora do ar. Dá pra "
                "fazer replay dos eventos?",
                ["err-e4295"],
                ["howto-webhooks"],
                "Sim: depois de 50 falhas seguidas o endpoint é desativado. Corrija o servidor, clique em "
                "Re-enable e reenvie as entregas das últimas 72 horas pelo delivery log.",
                "pt+en",
            ),
        ],
    ),
    (
        "s13",
        "Eine Filialleiterin in Wien",
        [
            (
                "paraphrase",
                "Das Tablet am Eingang zeigt nur eine Zahlenfolge statt der Tastatur zum Einstempeln.",
                ["err-e6001-de"],
                ["err-e6021"],
                "Der Kiosk ist nicht gekoppelt. Ein Admin gibt den Code unter Einstellungen > Kiosks > Kiosk "
                "koppeln ein und wählt den Standort.",
                "de",
            ),
            (
                "changed_policy",
                "Werden kleine Überstunden bis zwei Stunden pro Woche noch automatisch genehmigt?",
                ["pol-ueberstunden-2025-de"],
                ["pol-ueberstunden-2024-de"],
                "Nein. Überstunden müssen vor Beginn der Schicht genehmigt werden; nur Notfall-Überstunden "
                "dürfen ohne Genehmigung gearbeitet und innerhalb von 24 Stunden markiert werden.",
                "de",
            ),
            (
                "paraphrase",
                "Wie gebe ich meinen Samstagsdienst an eine Kollegin ab?",
                ["howto-schichttausch-de"],
                [],
                "In der App die Schicht öffnen, Tauschen tippen und die Kollegin wählen; die Führungskraft "
                "genehmigt, sofern der Standort nicht automatisch genehmigt.",
                "de",
            ),
            (
                "changed_policy",
                "Wir haben vor drei Wochen ein Jahresabo gekauft. Bekommen wir unser Geld noch zurück?",
                ["pol-erstattung-2025-de"],
                ["pol-erstattung-2024-de"],
                "Ja, Jahrespläne werden innerhalb von 30 Tagen nach dem Kauf voll erstattet.",
                "de",
            ),
            (
                "paraphrase",
                "Die Lohnabrechnung lässt sich nicht übertragen, weil bei manchen Leuten die Personalnummer fehlt.",
                ["err-e7042-de"],
                [],
                "Jeder exportierte Mitarbeiter braucht die Lohn-ID des Anbieters: im Profil eintragen oder "
                "gesammelt per CSV importieren.",
                "de",
            ),
            (
                "paraphrase",
                "Meine Leute bekommen vor Schichtbeginn keine Erinnerung mehr aufs Handy.",
                ["err-e5240"],
                [],
                "Energiesparfunktionen unter Android oder Fokus-Modi unter iOS unterdrücken die Nachrichten: "
                "Tessel von der Akku-Optimierung ausnehmen und in Fokus-Modi erlauben.",
                "de",
            ),
            (
                "paraphrase",
                "Im Keller ohne Netz wurde gestempelt, und diese Zeiten sind nie angekommen.",
                ["err-e5203-de"],
                [],
                "Offline-Stempelungen werden 72 Stunden gespeichert; Handy verbinden und App öffnen. Was "
                "verloren ist, trägt die Führungskraft von Hand nach.",
                "de",
            ),
            (
                "unanswerable",
                "Gibt es eine Schnittstelle zu DATEV?",
                [],
                ["howto-payroll-connector"],
                "Die Wissensdatenbank sagt nicht, welche Anbieter der Payroll Connector unterstützt.",
                "de",
            ),
            (
                "changed_policy",
                "Unser Sync-Script bekommt nachts ständig 429 Too Many Requests. Wie viele Requests pro Minute "
                "sind erlaubt?",
                ["pol-ratelimits-2026"],
                ["pol-ratelimits-2024", "pol-ratelimits-dedicated", "community-ratelimit-numbers"],
                "300 Requests pro Minute und Token (Bursts bis 50 pro Sekunde); Bulk-Requests zählen 10-fach.",
                "de+en",
            ),
        ],
    ),
]

"""Organisations: well-known companies, universities, agencies and news outlets, and the
words that make a capitalised name an organisation's ("Acme Corp", "University of Leeds")."""

from __future__ import annotations

from zerda.entities._lists import rows, words

ORGANISATIONS = rows(
    """
    Google, Alphabet, Apple, Microsoft, Amazon, Meta, Facebook, Instagram, WhatsApp, Netflix
    Tesla, SpaceX, OpenAI, Anthropic, DeepMind, Google DeepMind, Mistral AI, Cohere
    Hugging Face, Stability AI, xAI, Nvidia, NVIDIA, Intel, AMD, Qualcomm, Arm, TSMC, IBM
    Oracle, Salesforce, Adobe, SAP, Cisco, Dell, HP, Hewlett-Packard, Lenovo, Samsung, Sony
    LG, Huawei, Xiaomi, Alibaba, Tencent, Baidu, ByteDance, TikTok, Uber, Lyft, Airbnb
    Twitter, LinkedIn, Reddit, Pinterest, Snapchat, Yahoo, eBay, PayPal, Stripe, Shopify
    Spotify, Slack, Zoom, Dropbox, Atlassian, GitHub, GitLab, Bitbucket, Red Hat, Canonical
    Mozilla, Wikipedia, Wikimedia, Stack Overflow, Cloudflare, Vercel, Netlify, Heroku
    DigitalOcean, AWS, Amazon Web Services, Palantir, Databricks, Snowflake, MongoDB
    Infosys, Wipro, Tata Consultancy Services, TCS, Accenture, Deloitte, PwC, KPMG, EY
    Ernst & Young, McKinsey, Boston Consulting Group, BCG, Bain, Capgemini, Nintendo
    Electronic Arts, Activision, Ubisoft, Valve, Epic Games, Siemens, Philips, Bosch
    Volkswagen, BMW, Mercedes-Benz, Audi, Porsche, Toyota, Honda, Nissan, Hyundai, Kia, Ford
    General Motors, Stellantis, Renault, Volvo, Boeing, Airbus, Lockheed Martin, Raytheon
    General Electric, Walmart, Costco, IKEA, Starbucks, Coca-Cola, PepsiCo
    Pepsi, Nestlé, Unilever, Procter & Gamble, Johnson & Johnson, Nike, Adidas, Disney
    Warner Bros, Paramount, Universal Pictures, Pixar, HBO, Pfizer, Moderna, Novartis, Roche
    AstraZeneca, Merck, Bayer, GSK, Sanofi, ExxonMobil, Exxon, Chevron, BP, TotalEnergies
    Saudi Aramco, FedEx, UPS, DHL, USPS, Verizon, AT&T, T-Mobile, Vodafone, Comcast
    Deutsche Telekom, JPMorgan, JPMorgan Chase, J.P. Morgan, Goldman Sachs, Morgan Stanley
    Bank of America, Citigroup, Citibank, Wells Fargo, HSBC, Barclays, Deutsche Bank, UBS
    Credit Suisse, BNP Paribas, Santander, BlackRock, Vanguard, Fidelity, Charles Schwab
    Robinhood, Coinbase, Binance, Visa Inc., Mastercard, American Express, Berkshire Hathaway
    Lufthansa, Ryanair, easyJet, British Airways, Air France, KLM, Emirates, Qatar Airways
    American Airlines, United Airlines, Delta Air Lines, Southwest Airlines
    Harvard, Harvard University, MIT, Stanford, Stanford University, Yale, Princeton
    Caltech, UC Berkeley, UCLA, NYU, Carnegie Mellon, CMU, Cornell, Johns Hopkins
    Columbia University, Oxford University, Cambridge University, Imperial College London
    UCL, LSE, ETH Zurich, EPFL, Sorbonne, Tsinghua, Peking University, McGill, INSEAD
    NASA, ESA, NOAA, FBI, CIA, NSA, FDA, CDC, NIH, EPA, IRS, SEC, FTC, FCC, DOJ, DHS, NHS
    WHO, World Health Organization, UN, United Nations, UNESCO, UNICEF, NATO, EU
    European Union, European Commission, European Parliament, European Central Bank, ECB
    IMF, International Monetary Fund, World Bank, WTO, OPEC, Red Cross, Greenpeace
    Amnesty International, Federal Reserve, Fed, Bank of England, Bank of Japan, Congress
    Senate, Parliament, Supreme Court, White House, Pentagon, Kremlin, Interpol, Europol
    BBC, CNN, NPR, PBS, Reuters, Associated Press, Bloomberg, New York Times, NYT
    Washington Post, Wall Street Journal, WSJ, Financial Times, Guardian, Economist
    Al Jazeera, Fox News, NBC, CBS, ABC News, Le Monde, Der Spiegel, Axios
    Politico, TechCrunch, Wired, NBA, NFL, MLB, NHL, FIFA, UEFA, IOC
    Linux Foundation, Apache Software Foundation, Python Software Foundation, W3C, IETF
    IEEE, ACM, OpenStreetMap
    """
)

# Organisations that are also everyday words: never at a sentence start ("Apple pie...").
WORDLIKE = words(
    """
    Apple Amazon Meta Oracle Shell Slack Zoom Stripe Snowflake Valve Wired Guardian
    Economist Fidelity Vanguard Fed Congress Senate Parliament Arm Bain Emirates
    """
)

# The last word of an organisation's name: "Acme Corp", "Bell Labs", "Deutsche Bank". Words
# as common as Group, Systems or Media are left out ("Working Group", "Distributed Systems").
SUFFIXES = words(
    """
    Inc Inc. Corp Corp. Corporation Company Co. LLC L.L.C. Ltd Ltd. Limited GmbH AG SA S.A.
    PLC plc LLP NV BV Pty Holdings Partners Associates University College Institute
    Foundation Bank Labs Laboratories Laboratory Technologies Industries Enterprises Ventures
    Society Association Council Committee Commission Agency Authority Bureau Department
    Ministry Hospital Clinic School Academy Museum Press Airlines Airways Motors
    Pharmaceuticals Studios Records Entertainment Church FC Party Federation League
    Organization Organisation Consortium Cooperative Co-op Institution Conservatory
    """
)

# Suffixes written after a comma: "Acme, Inc.", "Contoso, Ltd".
COMMA_SUFFIXES = words("Inc Inc. LLC Ltd Ltd. Corp Corp. GmbH AG PLC LLP")

# Heads followed by `of` (or `de`, ...) and a name: "University of Toronto".
OF_HEADS = words(
    """
    University Université Universidad Universidade Università Universität Universiteit Bank
    Institute College Museum Ministry Department School Academy Church Society Association
    Federation Council League Bureau Commission Court Embassy
    """
)
OF_WORDS = words("of de di do da del der für")
